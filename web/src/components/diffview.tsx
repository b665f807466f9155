// Renders the result of any diff operation (or a check run of that type)
// as tables and charts, with "Add to checklist".
import { useState } from 'preact/hooks';
import { createCheck, type DiffResult, type Frame } from '../api';
import { useCan } from '../context';
import { columnLabel, fmtNum, fmtShare, stepSentence } from '../util';
import { Bars } from './bars';
import { Grid } from './grid';

export interface CheckSpec {
  type: string;
  params: object;
  name: string;
}

export function DiffView({ result, check }: { result: DiffResult; check?: CheckSpec }) {
  return (
    <div class="diffview" data-type={result.type}>
      {result.warning ? <p class="warn" data-testid="diff-warning">{result.warning}</p> : null}
      <Body r={result} />
      {check ? <AddToChecklist spec={check} /> : null}
    </div>
  );
}

function Body({ r }: { r: DiffResult }) {
  switch (r.type) {
    case 'row_count_diff':
      return (
        <table class="grid compact" aria-label="Row counts">
          <thead>
            <tr>
              <th>model</th>
              <th>base</th>
              <th>current</th>
              <th>delta</th>
            </tr>
          </thead>
          <tbody>
            {r.rows.map((x) => (
              <tr key={x.model} data-model={x.model}>
                <td>{x.model}</td>
                <td class="num" title={x.baseMessage}>{x.base !== null ? fmtNum(x.base) : `N/A (${x.baseStatus ?? 'not counted'})`}</td>
                <td class="num" title={x.currentMessage}>{x.current !== null ? fmtNum(x.current) : `N/A (${x.currentStatus ?? 'not counted'})`}</td>
                <td class="num">{x.base !== null && x.current !== null ? signed(x.current - x.base) : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      );
    case 'profile_diff':
      return <ProfileTable base={r.base} current={r.current} />;
    case 'value_diff': {
      const v = r.value;
      return (
        <div>
          <p class="summary" data-testid="value-diff-summary">
            <strong>{fmtNum(v.total)}</strong> rows compared on key <code>{v.primaryKey.join(', ')}</code>:{' '}
            <span class="added">{fmtNum(v.added)} added</span>, <span class="removed">{fmtNum(v.removed)} removed</span>,{' '}
            <span class="changed">{fmtNum(v.changed)} changed</span>
          </p>
          <Grid frame={v.columns} caption="per column" filename="value_diff.csv" format={(c, x) => (c === 'matched_p' ? fmtShare(x as number) : undefined)} />
        </div>
      );
    }
    case 'value_diff_detail':
      return <Grid frame={r.frame} caption="changed rows (in_a = base, in_b = current)" filename="value_diff_detail.csv" rowClass={detailRow(r.frame)} />;
    case 'top_k_diff': {
      const labels = (r.current?.values ?? r.base?.values ?? []).map((x) => (x === null ? 'null' : String(x)));
      const countOf = (side: typeof r.base, l: string) => {
        const i = side?.values.findIndex((x) => (x === null ? 'null' : String(x)) === l) ?? -1;
        return i >= 0 ? side!.counts[i] : 0;
      };
      for (const x of r.base?.values ?? []) {
        const l = x === null ? 'null' : String(x);
        if (!labels.includes(l)) labels.push(l);
      }
      return <Bars title="Most frequent values" labels={labels} base={labels.map((l) => countOf(r.base, l))} current={labels.map((l) => countOf(r.current, l))} />;
    }
    case 'histogram_diff':
      return <Bars title="Histogram" labels={r.histogram.labels} base={r.histogram.base} current={r.histogram.current} />;
    case 'query':
      return <Grid frame={r.frame} caption="result" filename="query.csv" />;
    case 'query_diff': {
      const d = r.diff;
      if (d.diff) {
        return (
          <div>
            {d.summary ? (
              <p class="summary">
                <span class="added">{fmtNum(d.summary.added)} added</span>, <span class="removed">{fmtNum(d.summary.removed)} removed</span>,{' '}
                <span class="changed">{fmtNum(d.summary.changed)} changed</span>
              </p>
            ) : null}
            <Grid frame={d.diff} caption="differing rows (in_a = base, in_b = current)" filename="query_diff.csv" rowClass={detailRow(d.diff)} />
          </div>
        );
      }
      return (
        <div class="side-by-side">
          <Grid frame={d.base} caption="base" filename="query_base.csv" />
          <Grid frame={d.current} caption="current" filename="query_current.csv" />
        </div>
      );
    }
    case 'schema_diff':
      if (r.schema.length === 0) {
        // No rows is "no change" only when every node could be compared.
        return <p class="summary">{r.coverage === 'complete' ? 'No column changes.' : `No column changes found; schema coverage is ${r.coverage}.`}</p>;
      }
      return (
        <table class="grid compact" aria-label="Schema changes">
          <thead>
            <tr>
              <th>node</th>
              <th>column</th>
              <th>change</th>
              <th>base type</th>
              <th>current type</th>
            </tr>
          </thead>
          <tbody>
            {r.schema.map((c) => (
              <tr key={c.nodeId + c.column}>
                <td>{c.nodeId}</td>
                <td>{c.column}</td>
                <td>{c.status}</td>
                <td>{c.baseType ?? ''}</td>
                <td>{c.currentType ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      );
    case 'other':
      return <pre class="json">{JSON.stringify(r.raw, null, 2)}</pre>;
  }
}

// The metrics of a profile, in the order a reader scans them.
const profileMetrics = ['row_count', 'not_null_proportion', 'distinct_count', 'distinct_proportion', 'is_unique', 'min', 'max', 'avg', 'median'];

function fmtMetric(key: string, v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number' && key.endsWith('_proportion')) return fmtShare(v);
  return fmtNum(v);
}

/**
 * A profile diff as one row per column, each metric with base and current
 * side by side and the ones that changed marked, so a change reads at a
 * glance instead of across two tables.
 */
export function ProfileTable({ base, current }: { base: Frame | null; current: Frame | null }) {
  const index = (f: Frame | null) => {
    const m = new Map<string, Record<string, unknown>>();
    if (!f) return m;
    for (const row of f.rows) {
      const rec: Record<string, unknown> = {};
      f.columns.forEach((c, i) => (rec[c.key] = row[i]));
      m.set(String(rec.column_name), rec);
    }
    return m;
  };
  const b = index(base);
  const c = index(current);
  const names = [...c.keys()];
  for (const n of b.keys()) if (!c.has(n)) names.push(n);
  return (
    <div class="grid-scroll">
      <table class="grid compact profile" aria-label="Profile diff">
        <thead>
          <tr>
            <th scope="col">column</th>
            <th scope="col">type</th>
            {profileMetrics.map((m) => (
              <th scope="col" key={m} title={m}>
                {columnLabel(m)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {names.map((n) => {
            const x = b.get(n);
            const y = c.get(n);
            const status = !x ? 'added' : !y ? 'removed' : undefined;
            return (
              <tr key={n} data-column={n} class={status ? `row-${status}` : undefined}>
                <th scope="row">
                  {n}
                  {status ? <span class="tag"> {status}</span> : null}
                </th>
                <td>{String((y ?? x)?.data_type ?? '')}</td>
                {profileMetrics.map((m) => {
                  const bv = x ? fmtMetric(m, x[m]) : '';
                  const cv = y ? fmtMetric(m, y[m]) : '';
                  const changed = !!x && !!y && bv !== cv;
                  return (
                    <td key={m} class={changed ? 'num changed' : 'num'} data-metric={m} data-changed={changed ? 'true' : undefined}>
                      {changed ? (
                        <>
                          <span class="base">{bv}</span> → <strong class="current">{cv}</strong>
                        </>
                      ) : (
                        (y ? cv : bv)
                      )}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Failed warehouse steps, one sentence each. */
export function FailedSteps({ errors }: { errors: unknown[] }) {
  return (
    <ul class="failed-steps">
      {errors.map((e, i) => (
        <li key={i}>{stepSentence(e)}</li>
      ))}
    </ul>
  );
}

function signed(n: number) {
  return n > 0 ? `+${fmtNum(n)}` : fmtNum(n);
}

function detailRow(f: Frame | null) {
  const a = f?.columns.findIndex((c) => c.key === 'in_a') ?? -1;
  const b = f?.columns.findIndex((c) => c.key === 'in_b') ?? -1;
  return (row: unknown[]) => {
    if (a < 0 || b < 0) return undefined;
    if (row[a] && !row[b]) return 'row-base';
    if (row[b] && !row[a]) return 'row-current';
    return undefined;
  };
}

export function AddToChecklist({ spec, run = true }: { spec: CheckSpec; run?: boolean }) {
  const can = useCan('create_check');
  const [state, setState] = useState<'idle' | 'busy' | 'done' | Error>('idle');
  const [runError, setRunError] = useState<string | undefined>();
  if (!can) return null;
  return (
    <p class="add-check">
      <button
        type="button"
        disabled={state === 'busy' || state === 'done'}
        onClick={async () => {
          setState('busy');
          try {
            const c = await createCheck({ type: spec.type, params: spec.params, name: spec.name, run });
            // The check is saved either way; a failed run leaves it unapproved.
            setRunError(c.runError);
            setState('done');
          } catch (e) {
            setState(e as Error);
          }
        }}
      >
        {state === 'done' ? 'Added to checklist ✓' : state === 'busy' ? 'Adding…' : 'Add to checklist'}
      </button>
      {state instanceof Error ? <span class="error"> {state.message}</span> : null}
      {runError ? <span class="error"> its run failed: {runError}</span> : null}
    </p>
  );
}
