// Impact triage: impact_analysis as a verdict table. Each next_action runs
// with one click; suggested checks go to the checklist.
import { useState } from 'preact/hooks';
import { callOp, type DiffResult, type Impact, type ImpactModel, parseDiff } from '../api';
import { AddToChecklist, DiffView, FailedSteps } from '../components/diffview';
import { useInfo } from '../context';
import { useImpact } from '../impactstore';
import { fmtCounts, fmtDeltaPct, fmtNum, href } from '../util';

export function ImpactScreen() {
  const info = useInfo();
  const impact = useImpact(true);
  const d = impact.data;
  return (
    <div class="impact-screen">
      <h1>Impact triage</h1>
      {info && !info.warehouse ? <p class="warn">No warehouse is configured: row counts and value diffs cannot run, so verdicts stay potential.</p> : null}
      <p>
        <button type="button" onClick={impact.rerun} disabled={impact.loading}>
          {impact.loading ? 'Analysing…' : 'Re-run impact analysis'}
        </button>
      </p>
      {impact.error ? <p class="error">{impact.error.message}</p> : null}
      {d?.warning ? <p class="warn">{d.warning}</p> : null}
      {d ? (
        <>
          <p class="summary">
            {fmtCounts(d.counts, d.notImpactedByLineage.length)} · classified by{' '}
            {d.classificationSource}
            {d.maxAffectedRows !== null ? ` · at most ${fmtNum(d.maxAffectedRows)} affected rows in one model` : ''}
          </p>
          <table class="grid verdicts" aria-label="Impact verdicts">
            <thead>
              <tr>
                <th>model</th>
                <th>change</th>
                <th>data impact</th>
                <th>rows base → current</th>
                <th>schema</th>
                <th>affected rows</th>
                <th>next action</th>
              </tr>
            </thead>
            <tbody>
              {d.models.map((m) => (
                <Row m={m} key={m.id} />
              ))}
            </tbody>
          </table>
          {d.notImpacted.length ? <NotImpacted names={d.notImpacted} byLineage={d.notImpactedByLineage} /> : null}
          {d.suggested.length ? (
            <section>
              <h2>Suggested checks</h2>
              <ul class="suggested">
                {d.suggested.map((s) => (
                  <li key={s.type + JSON.stringify(s.params)}>
                    <strong>{s.name}</strong> <span class="tag">{s.type}</span> <span class="muted">{s.description}</span>
                    <AddToChecklist spec={{ type: s.type, params: s.params, name: s.name }} run={false} />
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
          {d.errors.length ? (
            <section>
              <h2>Steps that failed</h2>
              <FailedSteps errors={d.errors} />
            </section>
          ) : null}
        </>
      ) : null}
    </div>
  );
}

/** The models no data-affecting change reaches; column lineage's evidence beside those it ruled out. */
function NotImpacted({ names, byLineage }: { names: string[]; byLineage: Impact['notImpactedByLineage'] }) {
  const evidence = new Map(byLineage.map((n) => [n.name, n]));
  return (
    <section>
      <h2>Not impacted ({names.length})</h2>
      <ul class="not-impacted">
        {names.map((name) => {
          const n = evidence.get(name);
          return (
            <li key={name} data-model={name}>
              {n ? <a href={href('model', n.id)}>{name}</a> : name}
              {n ? (
                <span class="muted">
                  {' '}
                  ruled out by column lineage: reads {n.reads.join(', ')}; checked against {n.checkedAgainst.join(', ')}
                </span>
              ) : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function Row({ m }: { m: ImpactModel }) {
  const [out, setOut] = useState<DiffResult | Error | null>(null);
  const [busy, setBusy] = useState(false);
  const a = m.nextAction;
  const run = async () => {
    if (!a) return;
    setBusy(true);
    try {
      setOut(parseDiff(a.tool, await callOp(a.tool, a.arguments)));
    } catch (e) {
      setOut(e as Error);
    } finally {
      setBusy(false);
    }
  };
  const rows =
    m.rowsBase === null && m.rowsCurrent === null
      ? `N/A${m.rowsNote ? ` (${m.rowsNote})` : ''}`
      : `${m.rowsBase ?? 'N/A'} → ${m.rowsCurrent ?? 'N/A'}${m.rowsDeltaPct !== null ? ` (${fmtDeltaPct(m.rowsDeltaPct)})` : ''}`;
  return (
    <>
      <tr data-model={m.name} data-impact={m.dataImpact}>
        <td>
          <a href={href('model', m.id)}>{m.name}</a>
          {m.warning ? <p class="warn">{m.warning}</p> : null}
        </td>
        <td>
          {m.changeStatus ?? m.classification}
          {m.changeCategory && m.changeCategory !== 'unknown' ? <span class="tag">{m.changeCategory}</span> : null}
        </td>
        <td>
          <span class={`pill impact-${m.dataImpact}`}>{m.dataImpact}</span>
        </td>
        <td class="num">{rows}</td>
        <td>{m.schemaChanges === null ? 'not compared' : m.schemaChanges.length ? m.schemaChanges.map((c) => `${c.status} ${c.column}`).join(', ') : 'unchanged'}</td>
        <td class="num">{m.affectedRows ?? (m.valueDiffSkipped ? <span class="muted" title={m.valueDiffSkipped}>—</span> : '')}</td>
        <td>
          {a ? (
            <>
              <button type="button" onClick={run} disabled={busy} title={a.reason}>
                {busy ? 'Running…' : `Run ${a.tool}`}
              </button>{' '}
              <span class={`tag prio-${a.priority}`}>{a.priority}</span> <span class="muted">{a.reason}</span>
            </>
          ) : (
            <span class="muted">nothing to do</span>
          )}
        </td>
      </tr>
      {out ? (
        <tr class="action-result">
          <td colSpan={7}>
            {out instanceof Error ? <p class="error">{out.message}</p> : <DiffView result={out} check={a ? { type: a.tool, params: a.arguments, name: `${a.tool} of ${m.name}` } : undefined} />}
          </td>
        </tr>
      ) : null}
    </>
  );
}
