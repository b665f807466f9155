// The review inside an agent host. The host hands the app the result of the
// tool it was opened for (impact_analysis, lineage_diff or
// render_lineage_mermaid); everything else comes from further tool calls
// through the host bridge (App.callServerTool), never from the network.
import type { App } from '@modelcontextprotocol/ext-apps';
import { applyDocumentTheme } from '@modelcontextprotocol/ext-apps';
import { useEffect, useMemo, useState } from 'preact/hooks';
import {
  type Impact,
  type ImpactModel,
  type LineageGraph,
  type ModelDetail,
  parseDiff,
  parseImpact,
  parseLineage,
  parseModel,
  type DiffResult,
  type Frame,
} from '../api';
import { Graph } from '../components/graph';
import { Grid } from '../components/grid';
import { type Badge, collapseChains, type GNode, type GraphData } from '../graphdata';
import { fmtDeltaPct, fmtNum, shortName } from '../util';

type Json = any;

/** What the tool result the app was opened for turned out to be. */
type Opened = { kind: 'impact'; impact: Impact } | { kind: 'lineage'; lineage: LineageGraph } | { kind: 'other'; text: string };

/** Which tool result a structuredContent is, by its fields (the host does not always say which tool ran). */
export function classify(j: Json, text: string): Opened {
  if (j && Array.isArray(j.confirmed_impacted_models)) return { kind: 'impact', impact: parseImpact(j) };
  if (j && j.nodes && j.edges && Array.isArray(j.nodes.columns)) return { kind: 'lineage', lineage: parseLineage(j) };
  return { kind: 'other', text };
}

function resultText(res: { content?: Json[] }): string {
  return (res.content ?? [])
    .filter((c) => c?.type === 'text')
    .map((c) => c.text as string)
    .join('\n');
}

/** Calls a server tool through the host and returns its JSON result. */
async function callTool(app: App, name: string, args: Record<string, unknown>): Promise<Json> {
  const res = await app.callServerTool({ name, arguments: args });
  const text = resultText(res);
  if (res.isError) throw new Error(text || `${name} failed`);
  if (res.structuredContent) return res.structuredContent;
  return JSON.parse(text);
}

type View = 'impact' | 'lineage';

export function Review({ app }: { app: App }) {
  const [opened, setOpened] = useState<Opened | null>(null);
  const [status, setStatus] = useState('Waiting for the tool result from the host…');
  const [view, setView] = useState<View>('impact');
  const [model, setModel] = useState<string | null>(null);
  const [lineage, setLineage] = useState<LineageGraph | null>(null);
  const [lineageError, setLineageError] = useState('');

  useEffect(() => {
    // Handlers first: the host may send the result right after the handshake.
    app.ontoolresult = (res) => {
      const text = resultText(res);
      if (res.isError) {
        setStatus(`The tool failed: ${text}`);
        return;
      }
      let j: Json = res.structuredContent;
      if (!j) {
        try {
          j = JSON.parse(text);
        } catch {
          j = null;
        }
      }
      const o = classify(j, text);
      setOpened(o);
      setView(o.kind === 'impact' ? 'impact' : 'lineage');
      if (o.kind === 'lineage') setLineage(o.lineage);
    };
    app.ontoolcancelled = () => setStatus('The tool call was cancelled.');
    app.onhostcontextchanged = (ctx) => ctx.theme && applyDocumentTheme(ctx.theme);
    if (window.parent === window) {
      // Opened on its own (a browser tab, a preview): there is no host to talk to.
      setStatus(
        "This is Ripple's MCP App: an MCP host (Claude, ChatGPT, VS Code, Goose…) shows it beside the chat " +
          'when impact_analysis, lineage_diff or render_lineage_mermaid returns.',
      );
      return;
    }
    app.connect().then(
      () => {
        const theme = app.getHostContext()?.theme;
        if (theme) applyDocumentTheme(theme);
      },
      (e: Error) => setStatus(`Could not connect to the host: ${e.message}`),
    );
  }, [app]);

  // The graph: the opened lineage_diff, else the changed models' lineage from
  // the app-only ui_lineage (lineage_diff without the agents' node cap).
  useEffect(() => {
    if (view !== 'lineage' || lineage || !opened) return;
    callTool(app, 'ui_lineage', { view_mode: 'changed_models' }).then(
      (j) => setLineage(parseLineage(j)),
      (e: Error) => setLineageError(e.message),
    );
  }, [view, lineage, opened]);

  const impact = opened?.kind === 'impact' ? opened.impact : null;
  return (
    <main class="rv">
      <h1>Ripple review</h1>
      {!opened ? <p class="muted">{status}</p> : null}
      {opened ? (
        <nav class="rv-tabs" aria-label="Views">
          {impact ? (
            <button type="button" aria-pressed={view === 'impact'} onClick={() => setView('impact')}>
              Impact
            </button>
          ) : null}
          <button type="button" aria-pressed={view === 'lineage'} onClick={() => setView('lineage')}>
            Lineage
          </button>
        </nav>
      ) : null}
      {opened?.kind === 'other' ? <pre aria-label="Tool result">{opened.text}</pre> : null}
      {view === 'impact' && impact ? <ImpactView impact={impact} open={setModel} /> : null}
      {view === 'lineage' && opened ? (
        lineage ? (
          <LineageView lineage={lineage} impact={impact} open={setModel} />
        ) : (
          <p class={lineageError ? 'error' : 'muted'}>{lineageError || 'Loading the lineage…'}</p>
        )
      ) : null}
      {model ? <ModelView app={app} id={model} impact={impact?.models.find((m) => m.id === model || m.name === model) ?? null} close={() => setModel(null)} /> : null}
    </main>
  );
}

function ImpactView({ impact: d, open }: { impact: Impact; open: (id: string) => void }) {
  return (
    <section aria-label="Impact triage">
      {d.warning ? <p class="warn">{d.warning}</p> : null}
      <div class="rv-stats">
        <div class="rv-stat" data-stat="modified">
          <b>{d.modifiedCount}</b> modified
        </div>
        <div class="rv-stat" data-stat="downstream">
          <b>{d.downstreamCount}</b> downstream
        </div>
        <div class="rv-stat" data-stat="not-impacted">
          <b>{d.notImpacted.length}</b> not impacted
        </div>
        <div class="rv-stat" data-stat="max-affected-rows">
          <b>{d.maxAffectedRows === null ? '–' : fmtNum(d.maxAffectedRows)}</b> max affected rows
        </div>
      </div>
      <p class="muted">classified by {d.classificationSource}</p>
      <ul class="rv-models" aria-label="Impact verdicts">
        {d.models.map((m) => (
          <ModelRow m={m} key={m.id || m.name} open={open} />
        ))}
      </ul>
      {d.notImpacted.length ? (
        <p class="muted" data-testid="not-impacted">
          Not impacted: {d.notImpacted.join(', ')}
        </p>
      ) : null}
      {d.errors.length ? <p class="error">{d.errors.length} step(s) failed; see the tool result.</p> : null}
    </section>
  );
}

function ModelRow({ m, open }: { m: ImpactModel; open: (id: string) => void }) {
  const reasons: string[] = [];
  if (m.changeStatus) reasons.push(`${m.changeStatus}${m.changeCategory ? ` (${m.changeCategory})` : ''}`);
  if (m.changedColumns.length) reasons.push(`changed columns: ${m.changedColumns.join(', ')}`);
  if (m.schemaChanges?.length) reasons.push(`schema: ${m.schemaChanges.map((c) => `${c.column} ${c.status}`).join(', ')}`);
  if (m.affectedRows !== null) reasons.push(`${fmtNum(m.affectedRows)} affected rows`);
  if (m.valueDiffSkipped) reasons.push(`value diff skipped: ${m.valueDiffSkipped}`);
  if (m.warning) reasons.push(m.warning);
  if (m.nextAction) reasons.push(`next: ${m.nextAction.tool} — ${m.nextAction.reason}`);
  const rows =
    m.rowsBase !== null || m.rowsCurrent !== null
      ? `rows ${m.rowsBase === null ? '—' : fmtNum(m.rowsBase)} → ${m.rowsCurrent === null ? '—' : fmtNum(m.rowsCurrent)}${m.rowsDeltaPct !== null ? ` (${fmtDeltaPct(m.rowsDeltaPct)})` : ''}`
      : m.rowsNote
        ? `rows: ${m.rowsNote}`
        : '';
  return (
    <li class="rv-model" data-model={m.name}>
      <div class="rv-model-head">
        <button type="button" onClick={() => open(m.id || m.name)} aria-label={`Open model ${m.name}`}>
          {m.name}
        </button>
        <span class={`rv-verdict ${m.dataImpact}`} data-verdict={m.dataImpact}>
          {m.dataImpact}
        </span>
        <span class="tag">{m.classification}</span>
        {rows ? <span class="rv-rows">{rows}</span> : null}
      </div>
      {reasons.length ? (
        <ul class="rv-reasons">
          {reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function toGraph(g: LineageGraph, impact: Impact | null, expanded: Set<string>): GraphData {
  const pos = new Map(g.nodes.map((n, i) => [n.idx, i]));
  const byId = new Map((impact?.models ?? []).map((m) => [m.id, m]));
  const nodes: GNode[] = g.nodes.map((n) => {
    const m = byId.get(n.id);
    const badges: Badge[] = m ? [{ text: m.dataImpact, tone: m.dataImpact === 'confirmed' ? 'down' : m.dataImpact === 'none' ? 'ok' : 'info' }] : [];
    return {
      key: n.id,
      label: n.name,
      sublabel: n.resourceType === 'model' ? (n.materialized ?? undefined) : n.resourceType,
      status: n.status,
      badges: badges.length ? badges : undefined,
    };
  });
  const edges = g.edges.map(([a, b]) => [pos.get(a)!, pos.get(b)!] as [number, number]).filter(([a, b]) => a !== undefined && b !== undefined);
  return collapseChains({ nodes, edges }, (i) => g.nodes[i].changeStatus !== null, expanded);
}

function LineageView({ lineage, impact, open }: { lineage: LineageGraph; impact: Impact | null; open: (id: string) => void }) {
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const data = useMemo(() => toGraph(lineage, impact, expanded), [lineage, impact, expanded]);
  return (
    <section aria-label="Lineage diff">
      {lineage.warning ? <p class="warn">{lineage.warning}</p> : null}
      <p class="muted" data-testid="lineage-counts">
        {lineage.changedCount} changed, {lineage.impactedCount} impacted, {lineage.nodes.length} of {lineage.totalNodes} nodes shown
      </p>
      <div class="rv-graph">
        <div style="position:relative;height:100%">
          <Graph
            data={data}
            label="Lineage diff graph"
            nodeWidth={150}
            onOpen={(n) => (n.members ? setExpanded(new Set([...expanded, n.key])) : open(n.key))}
          />
        </div>
      </div>
    </section>
  );
}

function ModelView({ app, id, impact, close }: { app: App; id: string; impact: ImpactModel | null; close: () => void }) {
  const [detail, setDetail] = useState<ModelDetail | null>(null);
  const [error, setError] = useState('');
  const [diff, setDiff] = useState<{ title: string; result?: DiffResult; error?: string } | null>(null);
  useEffect(() => {
    setDetail(null);
    setError('');
    setDiff(null);
    callTool(app, 'get_model', { model_id: id }).then(
      (j) => setDetail(parseModel(j)),
      (e: Error) => setError(e.message),
    );
  }, [id]);
  const side = detail?.current ?? detail?.base ?? null;
  const name = impact?.name ?? shortName(id);
  const run = (tool: string, args: Record<string, unknown>, title: string) => {
    setDiff({ title });
    callTool(app, tool, args).then(
      (j) => setDiff({ title, result: parseDiff(tool, j) }),
      (e: Error) => setDiff({ title, error: e.message }),
    );
  };
  const pk = side?.primaryKey ?? [];
  const next = impact?.nextAction;
  return (
    <section class="rv-detail" aria-label={`Model ${name}`}>
      <h2>
        {name}{' '}
        <button type="button" onClick={close} aria-label="Close the model">
          ×
        </button>
      </h2>
      {error ? <p class="error">{error}</p> : null}
      {!detail && !error ? <p class="muted">Loading {name}…</p> : null}
      {detail?.codeChangeSummary ? (
        <p class="rv-code-change" data-testid="code-change">
          {detail.codeChangeSummary}
        </p>
      ) : null}
      {side ? (
        <>
          <p class="muted">
            {side.materialized ?? ''}
            {pk.length ? ` · key ${pk.join(', ')}${side.keyBasis ? ` (${side.keyBasis})` : ''}` : ''}
            {!detail?.base ? ' · added' : !detail?.current ? ' · removed' : ''}
          </p>
          <div class="rv-scroll">
            <table aria-label="Columns">
              <thead>
                <tr>
                  <th>column</th>
                  <th>type</th>
                </tr>
              </thead>
              <tbody>
                {side.columns.map((c) => (
                  <tr key={c.name}>
                    <td>{c.name}</td>
                    <td>{c.type ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p>
            {next && next.tool === 'query_diff' ? (
              <button type="button" onClick={() => run('query_diff', next.arguments, 'query_diff')}>
                Run query_diff
              </button>
            ) : null}{' '}
            {pk.length && detail?.base && detail?.current ? (
              <button type="button" onClick={() => run('value_diff_detail', { model: name, primary_key: pk, limit: 50 }, 'value_diff_detail')}>
                Changed rows
              </button>
            ) : null}
          </p>
          {diff ? <DiffBox {...diff} /> : null}
          <details open={!detail?.codeChangeSummary}>
            <summary>SQL</summary>
            <pre aria-label="SQL">{side.code}</pre>
          </details>
        </>
      ) : null}
    </section>
  );
}

function DiffBox({ title, result, error }: { title: string; result?: DiffResult; error?: string }) {
  if (error) return <p class="error">{error}</p>;
  if (!result) return <p class="muted">Running {title}…</p>;
  let frame: Frame | null = null;
  let summary = '';
  if (result.type === 'value_diff_detail') frame = result.frame;
  else if (result.type === 'query_diff') {
    frame = result.diff.diff ?? result.diff.current;
    const s = result.diff.summary;
    if (s) summary = `${s.added} added, ${s.removed} removed, ${s.changed} changed`;
  }
  return (
    <div class="rv-scroll" aria-label={`${title} result`}>
      {result.warning ? <p class="warn">{result.warning}</p> : null}
      {summary ? <p>{summary}</p> : null}
      <Grid frame={frame} caption={title} />
      {frame ? <p class="muted">{frame.rows.length} rows</p> : null}
    </div>
  );
}
