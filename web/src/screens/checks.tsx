// The checklist: saved checks with their last run, re-run, approve, notes,
// reorder and delete; the PR summary preview and "copy for PR".
import { useState } from 'preact/hooks';
import { approveCheck, type Check, type CheckRun, createCheck, deleteCheck, listChecks, reorderCheck, runCheck, summaryMarkdown } from '../api';
import { DiffView } from '../components/diffview';
import { Markdown } from '../components/markdown';
import { useCan, useReloadKey } from '../context';
import { fmtTime, useAsync } from '../util';

export function ChecksScreen() {
  const list = useAsync(() => listChecks(), [useReloadKey()]);
  const canWrite = useCan('approve_check');
  const checks = list.data?.checks ?? [];
  return (
    <div class="checks-screen">
      <h1>Checklist</h1>
      {!canWrite ? <p class="muted">Read-only server: checks can be viewed, not changed.</p> : null}
      {list.error ? <p class="error">{list.error.message}</p> : null}
      {list.data ? (
        <p class="summary" data-testid="checks-totals">
          {list.data.total} checks · {list.data.approved} approved · {list.data.outdated} outdated
        </p>
      ) : null}
      {list.data && checks.length === 0 ? (
        <p class="empty">No checks yet. Add them from a diff result, the impact triage's suggested checks, or ripple.yml presets.</p>
      ) : null}
      <ol class="checklist">
        {checks.map((c, i) => (
          <CheckItem c={c} key={c.id} index={i} last={i === checks.length - 1} canWrite={canWrite} onChange={list.reload} />
        ))}
      </ol>
      <Summary />
    </div>
  );
}

function CheckItem({ c, index, last, canWrite, onChange }: { c: Check; index: number; last: boolean; canWrite: boolean; onChange: () => void }) {
  const [run, setRun] = useState<CheckRun | Error | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [notes, setNotes] = useState(c.description);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const act = async (what: string, f: () => Promise<unknown>) => {
    setBusy(what);
    try {
      await f();
      onChange();
    } catch (e) {
      setRun(e as Error);
    } finally {
      setBusy(null);
    }
  };
  // Run statuses are the seed's spellings (Finished, Failed, Cancelled).
  const status = c.lastRunStatus ? `${c.lastRunStatus.toLowerCase()} ${fmtTime(c.lastRunAt)}` : 'never run';
  return (
    <li class={`check ${c.approved ? 'approved' : ''}`} data-check-id={c.id} data-approved={c.approved ? 'true' : 'false'}>
      <div class="check-head">
        <label class="approve">
          <input
            type="checkbox"
            checked={c.approved}
            disabled={!canWrite || !!busy}
            aria-label={`Approve ${c.name}`}
            onChange={(e) => act('approve', () => approveCheck(c.id, (e.target as HTMLInputElement).checked))}
          />
          <strong>{c.name}</strong>
        </label>
        <span class="tag">{c.type}</span>
        {c.preset ? <span class="tag">preset</span> : null}
        {c.outdated ? (
          <span class="pill warn" title="the artifacts changed after the last run: re-run it">
            outdated
          </span>
        ) : null}
        {c.mismatched ? <span class="pill impact-confirmed">differs</span> : c.mismatched === false ? <span class="pill impact-none">no difference</span> : null}
        <span class="muted last-run">last run: {status}</span>
      </div>
      {c.lastRunError ? <p class="error">{c.lastRunError}</p> : null}
      {canWrite ? (
        <div class="check-actions">
          <button
            type="button"
            disabled={!!busy}
            onClick={async () => {
              setBusy('run');
              try {
                setRun(await runCheck(c.id, c.type));
                onChange();
              } catch (e) {
                setRun(e as Error);
              } finally {
                setBusy(null);
              }
            }}
          >
            {busy === 'run' ? 'Running…' : c.lastRunStatus ? 'Re-run' : 'Run'}
          </button>
          <button type="button" aria-label={`Move ${c.name} up`} disabled={!!busy || index === 0} onClick={() => act('up', () => reorderCheck(c.id, index - 1))}>
            ↑
          </button>
          <button type="button" aria-label={`Move ${c.name} down`} disabled={!!busy || last} onClick={() => act('down', () => reorderCheck(c.id, index + 1))}>
            ↓
          </button>
          {confirmDelete ? (
            <>
              <button type="button" class="danger" onClick={() => act('delete', () => deleteCheck(c.id))}>
                Delete {c.name}?
              </button>
              <button type="button" onClick={() => setConfirmDelete(false)}>
                Keep
              </button>
            </>
          ) : (
            <button type="button" onClick={() => setConfirmDelete(true)}>
              Delete
            </button>
          )}
        </div>
      ) : null}
      <details class="notes" open={!!c.description}>
        <summary>Notes</summary>
        <textarea aria-label={`Notes on ${c.name}`} value={notes} readOnly={!canWrite} rows={2} onInput={(e) => setNotes((e.target as HTMLTextAreaElement).value)} />
        {canWrite && notes !== c.description ? (
          // create_check is idempotent on type and params: it updates the description.
          <button type="button" disabled={!!busy} onClick={() => act('notes', () => createCheck({ type: c.type, params: c.params, name: c.name, description: notes, run: false }))}>
            Save notes
          </button>
        ) : null}
      </details>
      {run instanceof Error ? <p class="error">{run.message}</p> : null}
      {run && !(run instanceof Error) ? (
        <div class="diff-result">
          {run.error ? <p class="error">{run.error}</p> : null}
          {run.result ? <DiffView result={run.result} /> : null}
        </div>
      ) : null}
    </li>
  );
}

function Summary() {
  const [md, setMd] = useState<string | Error | null>(null);
  const [busy, setBusy] = useState(false);
  const [copied, setCopied] = useState(false);
  const load = async () => {
    setBusy(true);
    try {
      setMd(await summaryMarkdown());
    } catch (e) {
      setMd(e as Error);
    } finally {
      setBusy(false);
    }
  };
  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Off a secure context the clipboard API is absent: select the text instead.
      const ta = document.querySelector<HTMLTextAreaElement>('textarea.markdown-source');
      ta?.select();
      document.execCommand('copy');
    }
    setCopied(true);
  };
  return (
    <section class="summary-preview" aria-label="Pull-request summary">
      <h2>Pull-request summary</h2>
      <button type="button" onClick={load} disabled={busy}>
        {busy ? 'Building…' : md ? 'Refresh summary' : 'Preview summary'}
      </button>
      {typeof md === 'string' ? (
        <>
          <button type="button" class="primary" onClick={() => copy(md)}>
            {copied ? 'Copied ✓' : 'Copy for PR'}
          </button>
          <div class="md-split">
            <Markdown text={md} />
            <textarea class="markdown-source" aria-label="Summary Markdown" readOnly value={md} rows={20} />
          </div>
        </>
      ) : md instanceof Error ? (
        <p class="error">{md.message}</p>
      ) : null}
    </section>
  );
}
