// The home screen: the lineage diff as a DAG, with filters, search, impact
// badges and the model panel.
import { useMemo, useState } from 'preact/hooks';
import { type Impact, type LineageFilter, type LineageGraph, lineageDiff, schemaDiff, type SchemaDiff } from '../api';
import { Graph } from '../components/graph';
import { useInfo, useReloadKey } from '../context';
import { type Badge, collapseChains, type GNode, type GraphData } from '../graphdata';
import { useImpact } from '../impactstore';
import { fmtDeltaPct, go, href, useAsync } from '../util';
import { ModelPanel } from './model';

const STATUSES = ['added', 'removed', 'modified', 'impacted', 'ruled_out', 'unchanged'] as const;

export function LineageScreen({ model }: { model?: string }) {
  const info = useInfo();
  const [filter, setFilter] = useState<LineageFilter>({ viewMode: 'changed_models' });
  const [draft, setDraft] = useState({ select: '', exclude: '', packages: '' });
  const reload = useReloadKey();
  const graph = useAsync(() => lineageDiff(filter), [filter, reload]);
  const schema = useAsync(() => schemaDiff(), [reload]);
  const impact = useImpact(!!info?.warehouse);
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [query, setQuery] = useState('');
  const [showResults, setShowResults] = useState(false);
  const [focus, setFocus] = useState<{ key: string; seq: number }>();

  // The structure (and so the layout) depends only on the lineage and the
  // expanded chains; badges arriving later keep its edges, so no relayout.
  const structure = useMemo(() => (graph.data ? toGraphData(graph.data, expanded) : null), [graph.data, expanded]);
  const data = useMemo(() => (structure ? withBadges(structure, schema.data, impact.data) : null), [structure, schema.data, impact.data]);
  const matches = useMemo(() => {
    const q = query.trim().toLowerCase();
    if (!q || !graph.data) return [];
    return graph.data.nodes.filter((n) => n.name.toLowerCase().includes(q) || n.id.toLowerCase().includes(q)).slice(0, 50);
  }, [query, graph.data]);

  const jump = (id: string) => {
    // A node inside a collapsed chain is expanded first.
    const chain = data?.nodes.find((n) => n.members?.includes(id));
    if (chain) setExpanded(new Set([...expanded, chain.key]));
    setFocus({ key: id, seq: (focus?.seq ?? 0) + 1 });
    setShowResults(false);
  };
  const open = (n: GNode) => {
    if (n.members) setExpanded(new Set([...expanded, n.key]));
    else go('model', n.key);
  };
  const apply = (e: Event) => {
    e.preventDefault();
    setFilter({
      ...filter,
      select: draft.select.trim() || undefined,
      exclude: draft.exclude.trim() || undefined,
      packages: draft.packages.split(',').map((s) => s.trim()).filter(Boolean),
    });
  };
  const changed = graph.data?.nodes.filter((n) => n.changeStatus) ?? [];

  return (
    <div class={`lineage-screen ${model ? 'with-panel' : ''}`}>
      <form class="filters" onSubmit={apply} aria-label="Lineage filters">
        <div class="seg" role="radiogroup" aria-label="Nodes">
          {(['changed_models', 'all'] as const).map((m) => (
            <button
              type="button"
              role="radio"
              aria-checked={filter.viewMode === m}
              class={filter.viewMode === m ? 'on' : ''}
              onClick={() => setFilter({ ...filter, viewMode: m })}
              key={m}
            >
              {m === 'all' ? 'All nodes' : 'Changed & impacted'}
            </button>
          ))}
        </div>
        <label>
          select <input value={draft.select} placeholder="e.g. +customers" onInput={(e) => setDraft({ ...draft, select: (e.target as HTMLInputElement).value })} />
        </label>
        <label>
          exclude <input value={draft.exclude} placeholder="e.g. tag:legacy" onInput={(e) => setDraft({ ...draft, exclude: (e.target as HTMLInputElement).value })} />
        </label>
        <label>
          packages <input value={draft.packages} placeholder="root project" onInput={(e) => setDraft({ ...draft, packages: (e.target as HTMLInputElement).value })} />
        </label>
        <button type="submit">Apply</button>
        <div class="search">
          <input
            type="search"
            aria-label="Search models"
            placeholder="Search models (Enter jumps)"
            value={query}
            onInput={(e) => {
              setQuery((e.target as HTMLInputElement).value);
              setShowResults(true);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                if (matches[0]) jump(matches[0].id);
              }
            }}
          />
          {query && showResults && (
            <ul class="search-results" aria-label="Search results">
              {matches.map((m) => (
                <li key={m.id}>
                  <button type="button" onClick={() => jump(m.id)}>
                    {m.name} <span class={`pill status-${m.status}`}>{m.status}</span>
                  </button>
                </li>
              ))}
              {matches.length === 0 ? <li class="muted">no match</li> : null}
            </ul>
          )}
        </div>
      </form>
      <div class="lineage-body">
        <aside class="side" aria-label="Changed models">
          <Legend />
          {graph.data ? (
            <p class="muted counts">
              {graph.data.nodes.length} nodes · {graph.data.changedCount} changed · {graph.data.impactedCount} impacted
            </p>
          ) : null}
          <h2>Changed ({changed.length})</h2>
          <ul class="changed-list">
            {changed.map((n) => (
              <li key={n.id} data-status={n.status}>
                <a href={href('model', n.id)}>{n.name}</a> <span class={`pill status-${n.status}`}>{n.status}</span>
              </li>
            ))}
          </ul>
          {impact.error && info?.warehouse ? <p class="muted">Impact badges unavailable: {impact.error.message}</p> : null}
          {impact.loading && info?.warehouse ? <p class="muted">Running impact analysis for badges…</p> : null}
        </aside>
        <main class="canvas">
          {graph.error ? <p class="error">{graph.error.message}</p> : null}
          {graph.data?.warning ? <p class="warn">{graph.data.warning}</p> : null}
          {data ? (
            data.nodes.length ? (
              <Graph data={data} label="Lineage" selected={model} focus={focus} highlight={new Set(matches.map((m) => m.id))} onOpen={open} />
            ) : (
              <p class="empty">No nodes match. {filter.viewMode === 'changed_models' ? 'Nothing changed between base and current — try "All nodes".' : ''}</p>
            )
          ) : graph.loading ? (
            <p class="muted">Loading lineage…</p>
          ) : null}
        </main>
        {model ? <ModelPanel id={model} onClose={() => go('lineage')} /> : null}
      </div>
    </div>
  );
}

function Legend() {
  return (
    <ul class="legend" aria-label="Colours">
      {STATUSES.map((s) => (
        <li key={s}>
          <span class={`swatch status-${s}`} aria-hidden="true" /> {s}
        </li>
      ))}
    </ul>
  );
}

/** The lineage as drawable nodes: status colours and collapsed chains. */
export function toGraphData(g: LineageGraph, expanded: Set<string>): GraphData {
  const pos = new Map(g.nodes.map((n, i) => [n.idx, i]));
  const nodes: GNode[] = g.nodes.map((n) => ({
    key: n.id,
    label: n.name,
    sublabel: n.resourceType === 'model' ? (n.materialized ?? undefined) : n.resourceType,
    status: n.status,
  }));
  const edges = g.edges.map(([a, b]) => [pos.get(a)!, pos.get(b)!] as [number, number]).filter(([a, b]) => a !== undefined && b !== undefined);
  return collapseChains({ nodes, edges }, (i) => g.nodes[i].changeStatus !== null, expanded);
}

/** Badges for row-count delta (impact), schema change (schema_diff) and data_impact (impact). */
function withBadges(g: GraphData, schema: SchemaDiff | undefined, impact: Impact | undefined): GraphData {
  if (!schema && !impact) return g;
  const schemaCount = new Map<string, number>();
  for (const c of schema?.changes ?? []) schemaCount.set(c.nodeId, (schemaCount.get(c.nodeId) ?? 0) + 1);
  const byId = new Map((impact?.models ?? []).map((m) => [m.id, m]));
  const nodes = g.nodes.map((n) => {
    const badges: Badge[] = [];
    const m = byId.get(n.key);
    if (m && m.rowsDelta !== null && m.rowsDelta !== 0) {
      const text = `rows ${fmtDeltaPct(m.rowsDeltaPct) || (m.rowsDelta > 0 ? '+' : '') + m.rowsDelta}`;
      badges.push({ text, tone: m.rowsDelta > 0 ? 'up' : 'down', title: `row count ${m.rowsBase} → ${m.rowsCurrent}` });
    }
    const sc = schemaCount.get(n.key);
    if (sc) badges.push({ text: `schema ${sc}`, tone: 'warn', title: `${sc} column change${sc > 1 ? 's' : ''}` });
    if (m) badges.push({ text: m.dataImpact, tone: m.dataImpact === 'confirmed' ? 'down' : m.dataImpact === 'none' ? 'ok' : 'info', title: `data_impact ${m.dataImpact}` });
    return badges.length ? { ...n, badges } : n;
  });
  return { nodes, edges: g.edges };
}
