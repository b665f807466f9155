// Column lineage of one column: its upstream and downstream columns as a
// graph and as lists with transformation labels; row-shaping dependencies
// (joins, filters, group by) are listed apart from value lineage.
import { useMemo } from 'preact/hooks';
import { type Cll, type CllColumn, columnImpact, getCll, getNode } from '../api';
import { Graph } from '../components/graph';
import { useReloadKey } from '../context';
import type { GNode, GraphData } from '../graphdata';
import { go, href, shortName, useAsync } from '../util';

export function CllScreen({ node, column }: { node: string; column: string }) {
  const v = useReloadKey();
  const cll = useAsync(() => getCll(node, column), [node, column, v]);
  const impact = useAsync(() => columnImpact(node, [column]), [node, column, v]);
  const detail = useAsync(() => getNode(node), [node, v]);
  const view = useMemo(() => (cll.data ? split(cll.data, node, column) : null), [cll.data, node, column]);
  const rowShaped = (impact.data ?? []).filter((c) => c.reason === 'row_set');
  const name = shortName(node);

  return (
    <div class="cll-screen">
      <h1>
        Column lineage of <code>{name}.{column}</code>
      </h1>
      <p>
        <a href={href('model', node)}>← back to {name}</a>
      </p>
      {cll.error ? <p class="error">{cll.error.message}</p> : null}
      {view ? (
        <>
          <div class="cll-graph">
            <Graph data={view.graph} label="Column lineage" nodeWidth={240} selected={view.focusId} onOpen={(n: GNode) => openColumn(cll.data!, n.key)} />
          </div>
          <div class="cll-lists">
            <ColumnList title="Upstream" items={view.upstream} cll={cll.data!} testid="upstream" />
            <section>
              <h2>This column</h2>
              {view.focus ? <ColumnItem c={view.focus} cll={cll.data!} /> : <p class="muted">not in the lineage graph</p>}
            </section>
            <ColumnList title="Downstream" items={view.downstream} cll={cll.data!} testid="downstream" />
          </div>
        </>
      ) : cll.loading ? (
        <p class="muted">Loading column lineage…</p>
      ) : null}
      <div class="cll-lists">
        <section aria-label="Row-shaping dependencies">
          <h2>Rows of {name} are shaped by</h2>
          <p class="muted">Columns used in joins, filters, group by and windows: they decide which rows exist, not the value of {column}.</p>
          <ul data-testid="row-inputs">
            {(detail.data?.rowInputs ?? []).map((r) => (
              <li key={r.node + r.column + r.kind}>
                <code>
                  {shortName(r.node)}.{r.column}
                </code>{' '}
                <span class="tag">{r.kind}</span>
              </li>
            ))}
            {detail.data && detail.data.rowInputs.length === 0 ? <li class="muted">none</li> : null}
          </ul>
        </section>
        <section aria-label="Downstream through row shaping">
          <h2>Downstream through row shaping</h2>
          <p class="muted">Columns whose rows (not values) depend on {column}, e.g. it filters or joins them.</p>
          <ul>
            {rowShaped.map((c) => (
              <li key={c.node + c.column}>
                <a href={href('cll', c.node, c.column)}>
                  {shortName(c.node)}.{c.column}
                </a>
              </li>
            ))}
            {impact.data && rowShaped.length === 0 ? <li class="muted">none</li> : null}
          </ul>
        </section>
      </div>
    </div>
  );
}

function ColumnList({ title, items, cll, testid }: { title: string; items: CllColumn[]; cll: Cll; testid: string }) {
  return (
    <section aria-label={`${title} columns`}>
      <h2>
        {title} ({items.length})
      </h2>
      <ul data-testid={testid}>
        {items.map((c) => (
          <li key={c.id}>
            <ColumnItem c={c} cll={cll} />
          </li>
        ))}
        {items.length === 0 ? <li class="muted">none</li> : null}
      </ul>
    </section>
  );
}

function ColumnItem({ c, cll }: { c: CllColumn; cll: Cll }) {
  const n = cll.nodes[c.node];
  const status = c.changeStatus ?? columnStatus(n?.changeStatus);
  return (
    <span class="col-item" data-column={`${n?.name ?? shortName(c.node)}.${c.name}`}>
      <a href={href('cll', c.node, c.name)}>
        {n?.name ?? shortName(c.node)}.{c.name}
      </a>{' '}
      <span class={`tag transform-${c.transformation}`}>{c.transformation}</span>
      {status !== 'unchanged' ? <span class={`pill status-${status}`}>{status}</span> : null}
      {n?.opaque ? <span class="tag warn" title={n.opaqueReason}>opaque</span> : null}
    </span>
  );
}

/** A column of an added or removed model shares its status; otherwise only its own change colours it. */
function columnStatus(nodeStatus?: string) {
  return nodeStatus === 'added' || nodeStatus === 'removed' ? nodeStatus : 'unchanged';
}

function openColumn(cll: Cll, id: string) {
  const c = cll.columns[id];
  if (c) go('cll', c.node, c.name);
}

/** Splits the lineage around the focus column into upstream and downstream, and a graph of it. */
function split(cll: Cll, node: string, column: string) {
  const cols = Object.values(cll.columns);
  const idOf = (n: string, c: string) => cols.find((x) => x.node === n && x.name.toLowerCase() === c.toLowerCase())?.id;
  const focusNode = Object.values(cll.nodes).find((n) => n.id === node || n.name === node)?.id ?? node;
  const focusId = idOf(focusNode, column);
  const parents = new Map<string, string[]>();
  const children = new Map<string, string[]>();
  for (const c of cols) {
    for (const d of c.dependsOn) {
      const p = idOf(d.node, d.column);
      if (!p) continue;
      (parents.get(c.id) ?? parents.set(c.id, []).get(c.id)!).push(p);
      (children.get(p) ?? children.set(p, []).get(p)!).push(c.id);
    }
  }
  // Breadth first, so the list reads nearest first.
  const walk = (start: string | undefined, next: Map<string, string[]>) => {
    const depth = new Map<string, number>();
    const queue = start ? [start] : [];
    for (let h = 0; h < queue.length; h++) {
      for (const id of next.get(queue[h]) ?? []) {
        if (id === start || depth.has(id)) continue;
        depth.set(id, (depth.get(queue[h]) ?? 0) + 1);
        queue.push(id);
      }
    }
    return [...depth.keys()].map((id) => cll.columns[id]);
  };
  const upstream = walk(focusId, parents);
  const downstream = walk(focusId, children);
  const shown = [...upstream, ...(focusId ? [cll.columns[focusId]] : []), ...downstream];
  const index = new Map(shown.map((c, i) => [c.id, i]));
  const graph: GraphData = {
    nodes: shown.map((c) => ({
      key: c.id,
      label: `${cll.nodes[c.node]?.name ?? shortName(c.node)}.${c.name}`,
      sublabel: c.transformation,
      status: c.changeStatus ?? columnStatus(cll.nodes[c.node]?.changeStatus),
    })),
    edges: [],
  };
  for (const c of shown) for (const p of parents.get(c.id) ?? []) if (index.has(p)) graph.edges.push([index.get(p)!, index.get(c.id)!]);
  return { graph, upstream, downstream, focus: focusId ? cll.columns[focusId] : undefined, focusId };
}
