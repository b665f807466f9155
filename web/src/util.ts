import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Async<T> {
  data?: T;
  error?: Error;
  loading: boolean;
  reload: () => void;
}

/** Runs fn when deps change; keeps the last data while reloading. */
export function useAsync<T>(fn: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const seq = useRef(0);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const my = ++seq.current;
    setState((s) => ({ data: s.data, loading: true }));
    fn().then(
      (data) => my === seq.current && setState({ data, loading: false }),
      (error: Error) => my === seq.current && setState({ error, loading: false }),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** The screen addressed by the URL fragment: #/<screen>/<arg>/<arg>. */
export interface Route {
  screen: string;
  args: string[];
}

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  return { screen: parts[0] ?? 'lineage', args: parts.slice(1) };
}

export function href(screen: string, ...args: string[]): string {
  return '#/' + [screen, ...args.map(encodeURIComponent)].join('/');
}

export function go(screen: string, ...args: string[]) {
  location.hash = href(screen, ...args);
}

export function useRoute(): Route {
  const [r, setR] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setR(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return r;
}

export function fmtNum(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') {
    if (Number.isInteger(v)) return v.toLocaleString('en-US');
    return Math.abs(v) >= 1000 ? v.toLocaleString('en-US', { maximumFractionDigits: 2 }) : String(Number(v.toPrecision(6)));
  }
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * A signed percentage given in percent (impact's delta_pct), worded as
 * impact.FormatPct words it in the CLI, summary and diagram: one decimal,
 * more only where one decimal would read 0 (+0.015%, never 0%).
 */
export function fmtDeltaPct(v: number | null | undefined): string {
  if (v === null || v === undefined) return '';
  const a = Math.abs(v);
  const r = Math.round(a * 10) / 10;
  const s = r === 0 && a !== 0 ? String(Number(a.toPrecision(2))) : String(r);
  return `${v > 0 ? '+' : v < 0 ? '-' : ''}${s}%`;
}

/** The counts sentence every surface prints (impact.Counts.Sentence). */
export function fmtCounts(c: { modified: number; added: number; removed: number; downstream: number; notImpacted: number }, ruledOut: number): string {
  const impacted = c.modified + c.added + c.removed + c.downstream;
  let s = `${impacted} impacted (${c.modified} modified, ${c.added} added, ${c.removed} removed, ${c.downstream} downstream), ${c.notImpacted} not impacted`;
  if (ruledOut > 0) s += ` (${ruledOut} ruled out by column lineage)`;
  return s;
}

/** A share given as a fraction (value_diff's matched_p). */
export function fmtShare(v: number): string {
  return `${Number((v * 100).toFixed(2))}%`;
}

export function fmtTime(iso?: string): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (isNaN(d.getTime())) return iso;
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function shortName(id: string): string {
  return id.slice(id.lastIndexOf('.') + 1);
}

/** Column headers in words: result fields an analyst would have to decode. */
const columnLabels: Record<string, string> = {
  matched_p: 'matched share',
  matched: 'matched rows',
  mismatched: 'mismatched rows',
  in_a: 'in base',
  in_b: 'in current',
  column_name: 'column',
  data_type: 'type',
  row_count: 'rows',
  not_null_proportion: 'not null',
  distinct_proportion: 'distinct share',
  distinct_count: 'distinct values',
  is_unique: 'unique',
  avg: 'average',
  base_mean: 'base mean',
  current_mean: 'current mean',
  affected_row_count: 'affected rows',
};

export function columnLabel(key: string): string {
  return columnLabels[key] ?? key;
}

/** Identifiers (ids, keys) read as codes: no thousands separators. */
export function isIdentifier(column: string): boolean {
  return /(^|_)(id|key|pk|sk)$/i.test(column);
}

/**
 * The scale of a decimal column: the most decimal places its values were
 * sent with (at most 6), so amounts keep it ("63.40", "139.00", not "63.4").
 * decimalsOf(i) gives the places of the i-th value as the server wrote it.
 */
export function columnScale(n: number, decimalsOf: (i: number) => number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s = Math.max(s, decimalsOf(i));
  return Math.min(s, 6);
}

/** One cell: identifiers bare, decimals at their column's scale, else fmtNum. */
export function fmtCell(v: unknown, column: string, type: string, scale: number): string {
  if (typeof v === 'number') {
    if (isIdentifier(column) && Number.isInteger(v)) return String(v);
    if (type === 'number' && scale > 0) {
      return v.toLocaleString('en-US', { minimumFractionDigits: scale, maximumFractionDigits: scale });
    }
  }
  return fmtNum(v);
}

/** A failed warehouse step ({step, model, message}) as a sentence. */
export function stepSentence(e: unknown): string {
  const x = (e ?? {}) as { step?: string; model?: string; message?: string };
  const step = x.step ? x.step.replace(/_/g, ' ') : 'a step';
  const what = x.model ? `The ${step} of ${x.model} failed` : `The ${step} failed`;
  const msg = (x.message ?? '').trim();
  return msg ? `${what}: ${msg.replace(/\.?$/, '.')}` : `${what}.`;
}
