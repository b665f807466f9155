// The model panel: columns with schema-diff badges and column-lineage
// links, the SQL diff, tests, the key, and one button per data diff.
import { useState } from 'preact/hooks';
import { type CodeChangeDetail, diffArgs, type DiffResult, getModel, getNode, type ModelSide, runDiff, type SchemaChange, schemaDiff } from '../api';
import { CodeDiff } from '../components/codediff';
import { DiffView } from '../components/diffview';
import { useInfo, useReloadKey } from '../context';
import { useImpact } from '../impactstore';
import { href, shortName, useAsync } from '../util';

type Tab = 'columns' | 'code' | 'diffs';

export function ModelPanel({ id, onClose }: { id: string; onClose: () => void }) {
  const v = useReloadKey();
  const model = useAsync(() => getModel(id), [id, v]);
  const node = useAsync(() => getNode(id), [id, v]);
  const schema = useAsync(() => schemaDiff([id]), [id, v]);
  const [tab, setTab] = useState<Tab>('columns');
  const name = node.data?.name ?? shortName(id);
  const cur = model.data?.current;
  const base = model.data?.base;
  const side = cur ?? base;
  // The key triage found and verified (impact_analysis runs once per
  // artifacts version and is shared with the lineage screen's badges).
  const info = useInfo();
  const impact = useImpact(!!info?.warehouse);
  const triage = impact.data?.models.find((m) => m.id === id);
  const pk = side?.primaryKey.length ? side.primaryKey : (triage?.primaryKey ?? []);
  const pkBasis = side?.primaryKey.length ? side.keyBasis : triage?.primaryKey.length ? `impact_analysis: ${triage.keySource ?? 'verified'}` : undefined;

  return (
    <section class="panel" aria-label={`Model ${name}`}>
      <header>
        <h2>{name}</h2>
        <button type="button" class="close" aria-label="Close the model panel" onClick={onClose}>
          ×
        </button>
      </header>
      <p class="muted id">{id}</p>
      {model.error ? <p class="error">{model.error.message}</p> : null}
      {node.data?.description ? <p>{node.data.description}</p> : null}
      {side ? (
        <dl class="facts">
          <dt>materialized</dt>
          <dd>{side.materialized ?? '—'}</dd>
          <dt>key</dt>
          <dd data-testid="model-key">
            {pk.length ? <code>{pk.join(', ')}</code> : 'none found'}
            {pkBasis ? <span class="muted"> ({pkBasis}{side.primaryKey.length && side.keyEvidence ? `: ${side.keyEvidence}` : ''})</span> : null}
          </dd>
        </dl>
      ) : null}
      <div class="tabs" role="tablist">
        {(['columns', 'code', 'diffs'] as Tab[]).map((t) => (
          <button type="button" role="tab" aria-selected={tab === t} class={tab === t ? 'on' : ''} onClick={() => setTab(t)} key={t}>
            {t === 'columns' ? 'Columns & tests' : t === 'code' ? 'Code diff' : 'Data diffs'}
          </button>
        ))}
      </div>
      {tab === 'columns' ? <Columns id={id} cur={cur} base={base} schema={schema.data?.changes} tests={node.data?.tests ?? []} /> : null}
      {tab === 'code' && model.data?.codeChange ? <CodeChanges cc={model.data.codeChange} /> : null}
      {tab === 'code' && model.data ? <CodeDiff base={base?.code ?? null} current={cur?.code ?? null} /> : null}
      {tab === 'diffs' && side ? <Diffs name={name} columns={side.columns.map((c) => ({ name: c.name, type: c.type ?? '' }))} pk={pk} key={pk.join(',')} /> : null}

      {schema.data && schema.data.coverage !== 'complete' ? (
        <p class="muted">Schema coverage is {schema.data.coverage}: one side has no catalog columns for some nodes, so a missing badge is not evidence of no change.</p>
      ) : null}
    </section>
  );
}

function Columns({ id, cur, base, schema, tests }: { id: string; cur?: ModelSide | null; base?: ModelSide | null; schema?: SchemaChange[]; tests: string[] }) {
  const changes = new Map((schema ?? []).filter((c) => c.nodeId === id).map((c) => [c.column.toLowerCase(), c]));
  const names: string[] = [];
  for (const c of cur?.columns ?? []) names.push(c.name);
  for (const c of base?.columns ?? []) if (!names.some((n) => n.toLowerCase() === c.name.toLowerCase())) names.push(c.name);
  const find = (s: ModelSide | null | undefined, n: string) => s?.columns.find((c) => c.name.toLowerCase() === n.toLowerCase());
  return (
    <div>
      <table class="grid compact columns" aria-label="Columns">
        <thead>
          <tr>
            <th>column</th>
            <th>type</th>
            <th>schema</th>
            <th>lineage</th>
          </tr>
        </thead>
        <tbody>
          {names.map((n) => {
            const ch = changes.get(n.toLowerCase());
            const c = find(cur, n) ?? find(base, n);
            return (
              <tr key={n} data-column={n} data-change={ch?.status ?? 'unchanged'}>
                <td>
                  {n}
                  {c?.unique ? <span class="tag" title="unique test">unique</span> : null}
                  {c?.notNull ? <span class="tag" title="not_null test">not null</span> : null}
                </td>
                <td>{ch?.baseType && ch.currentType ? `${ch.baseType} → ${ch.currentType}` : (c?.type ?? '')}</td>
                <td>{ch ? <span class={`pill schema-${ch.status}`}>{ch.status}</span> : <span class="muted">—</span>}</td>
                <td>{ch?.status === 'removed' ? null : <a href={href('cll', id, n)}>column lineage</a>}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <h3>Tests ({tests.length})</h3>
      <ul class="tests">
        {tests.map((t) => (
          <li key={t}>
            <code>{testName(t)}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}

function testName(id: string) {
  // test.<package>.<name>.<hash>
  const parts = id.split('.');
  return parts.length >= 3 ? parts[2] : id;
}

interface ColumnInfo {
  name: string;
  type: string;
}

const NUMERIC = /int|numeric|decimal|float|double|real|number|date|time/i;

function Diffs({ name, columns, pk }: { name: string; columns: ColumnInfo[]; pk: string[] }) {
  const info = useInfo();
  const [key, setKey] = useState(pk.join(', '));
  const [column, setColumn] = useState(columns[0]?.name ?? '');
  const [numCol, setNumCol] = useState(columns.find((c) => NUMERIC.test(c.type))?.name ?? '');
  const [busy, setBusy] = useState<string | null>(null);
  const [result, setResult] = useState<{ r: DiffResult; type: string; params: object; label: string } | Error | null>(null);
  const keys = key.split(',').map((s) => s.trim()).filter(Boolean);
  const run = async (type: string, params: object, label: string) => {
    setBusy(type);
    setResult(null);
    try {
      setResult({ r: await runDiff(type, params), type, params, label });
    } catch (e) {
      setResult(e as Error);
    } finally {
      setBusy(null);
    }
  };
  if (info && !info.warehouse) return <p class="muted">No warehouse is configured: start `ripple serve` with --duckdb PATH or a dbt profile to run data diffs.</p>;
  const btn = (type: string, label: string, params: () => object, disabled = false) => (
    <button type="button" disabled={!!busy || disabled} onClick={() => run(type, params(), `${label} of ${name}`)} data-diff={type}>
      {busy === type ? `${label}…` : label}
    </button>
  );
  return (
    <div class="diffs">
      <div class="diff-buttons">
        {btn('row_count_diff', 'Row count', () => diffArgs.rowCount([name]))}
        {btn('profile_diff', 'Profile', () => diffArgs.profile(name))}
        <label>
          key <input value={key} aria-label="Primary key" onInput={(e) => setKey((e.target as HTMLInputElement).value)} placeholder="column[, column]" />
        </label>
        {btn('value_diff', 'Value diff', () => diffArgs.value(name, keys), keys.length === 0)}
        {btn('value_diff_detail', 'Value detail', () => diffArgs.valueDetail(name, keys), keys.length === 0)}
        <label>
          column{' '}
          <select aria-label="Top-k column" value={column} onChange={(e) => setColumn((e.target as HTMLSelectElement).value)}>
            {columns.map((c) => (
              <option key={c.name}>{c.name}</option>
            ))}
          </select>
        </label>
        {btn('top_k_diff', 'Top-k', () => diffArgs.topK(name, column), !column)}
        <label>
          numeric{' '}
          <select aria-label="Histogram column" value={numCol} onChange={(e) => setNumCol((e.target as HTMLSelectElement).value)}>
            {columns
              .filter((c) => NUMERIC.test(c.type))
              .map((c) => (
                <option key={c.name}>{c.name}</option>
              ))}
          </select>
        </label>
        {btn('histogram_diff', 'Histogram', () => diffArgs.histogram(name, numCol), !numCol)}
      </div>
      {result instanceof Error ? <p class="error">{result.message}</p> : null}
      {result && !(result instanceof Error) ? (
        <div class="diff-result" aria-live="polite">
          <h3>{result.label}</h3>
          <DiffView result={result.r} check={{ type: result.type, params: result.params, name: result.label }} />
        </div>
      ) : null}
    </div>
  );
}

// CodeChanges is what the SQL parser says changed, above the text diff: a
// reviewer reads the clause that changed before the lines that moved.
function CodeChanges({ cc }: { cc: CodeChangeDetail }) {
  if (cc.error) {
    return (
      <p class="muted" data-testid="code-change">
        The SQL could not be compared structurally ({cc.error}); read the text diff below.
      </p>
    );
  }
  if (cc.cosmetic) {
    return (
      <p data-testid="code-change">
        <strong>Cosmetic only</strong>: layout, comments, case or aliases changed; the query is the same.
        {cc.note ? <span class="muted"> {cc.note}</span> : null}
      </p>
    );
  }
  return (
    <div data-testid="code-change">
      <p>
        <strong>What changed</strong>: {cc.summary}
        {cc.note ? <span class="muted"> ({cc.note})</span> : null}
      </p>
      {cc.changes.length ? (
        <table class="grid compact code-changes" aria-label="Code changes">
          <thead>
            <tr>
              <th>change</th>
              <th>output column</th>
              <th>where</th>
              <th>before</th>
              <th>after</th>
            </tr>
          </thead>
          <tbody>
            {cc.changes.map((c, i) => (
              <tr key={i}>
                <td>{c.kind.replace(/_/g, ' ')}</td>
                <td>{c.column ? <code>{c.column}</code> : '—'}</td>
                <td>{c.scope === 'final' ? 'final select' : `CTE ${c.scope}`}</td>
                <td>{c.before ? <code>{c.before}</code> : '—'}</td>
                <td>{c.after ? <code>{c.after}</code> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
