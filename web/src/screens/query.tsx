// The query page: SQL with {{ ref() }} run in current or base, or as a
// query diff (primary keys optional, base SQL optional).
import { useState } from 'preact/hooks';
import { diffArgs, type DiffResult, runDiff } from '../api';
import { DiffView } from '../components/diffview';
import { SqlEditor } from '../components/editor';
import { useInfo } from '../context';

type Mode = 'current' | 'base' | 'diff';

const START = "select *\nfrom {{ ref('orders') }}\nlimit 100";

export function QueryScreen() {
  const info = useInfo();
  const [sql, setSql] = useState(() => sessionStorage.getItem('ripple.sql') ?? START);
  const [baseSql, setBaseSql] = useState('');
  const [useBaseSql, setUseBaseSql] = useState(false);
  const [mode, setMode] = useState<Mode>('current');
  const [keys, setKeys] = useState('');
  const [busy, setBusy] = useState(false);
  const [out, setOut] = useState<{ r: DiffResult; type: string; params: object } | Error | null>(null);

  const run = async () => {
    sessionStorage.setItem('ripple.sql', sql);
    const pk = keys.split(',').map((s) => s.trim()).filter(Boolean);
    const [type, params] =
      mode === 'diff' ? ['query_diff', diffArgs.queryDiff(sql, pk, useBaseSql ? baseSql : undefined)] : ['query', diffArgs.query(sql, mode === 'base')];
    setBusy(true);
    try {
      setOut({ r: await runDiff(type, params), type, params });
    } catch (e) {
      setOut(e as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="query-screen">
      <h1>Query</h1>
      {info && !info.warehouse ? <p class="warn">No warehouse is configured: queries cannot run.</p> : null}
      <p class="muted">
        Read-only SQL; <code>{"{{ ref('model') }}"}</code> and <code>{"{{ source('src', 'table') }}"}</code> resolve to each environment's relation. Ctrl/⌘-Enter runs.
      </p>
      <SqlEditor value={sql} onChange={setSql} onRun={run} label="SQL" />
      <div class="query-controls">
        <div class="seg" role="radiogroup" aria-label="Run in">
          {(['current', 'base', 'diff'] as Mode[]).map((m) => (
            <button type="button" role="radio" aria-checked={mode === m} class={mode === m ? 'on' : ''} onClick={() => setMode(m)} key={m}>
              {m === 'diff' ? 'Diff base vs current' : `Run in ${m}`}
            </button>
          ))}
        </div>
        {mode === 'diff' ? (
          <>
            <label>
              primary keys <input value={keys} onInput={(e) => setKeys((e.target as HTMLInputElement).value)} placeholder="optional, e.g. order_id" />
            </label>
            <label>
              <input type="checkbox" checked={useBaseSql} onChange={(e) => setUseBaseSql((e.target as HTMLInputElement).checked)} /> different SQL for base
            </label>
          </>
        ) : null}
        <button type="button" class="primary" onClick={run} disabled={busy}>
          {busy ? 'Running…' : 'Run'}
        </button>
      </div>
      {mode === 'diff' && useBaseSql ? <SqlEditor value={baseSql} onChange={setBaseSql} onRun={run} label="Base SQL" /> : null}
      {out instanceof Error ? <p class="error">{out.message}</p> : null}
      {out && !(out instanceof Error) ? <DiffView result={out.r} check={{ type: out.type, params: out.params, name: out.type === 'query' ? 'Query' : 'Query diff' }} /> : null}
    </div>
  );
}
