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

/** A signed percentage given in percent (impact's delta_pct). */
export function fmtDeltaPct(v: number | null | undefined): string {
  if (v === null || v === undefined) return '';
  return `${v > 0 ? '+' : ''}${v}%`;
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
