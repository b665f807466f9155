// impact_analysis runs warehouse queries, so the lineage badges and the
// triage screen share one result per artifacts version.
import { useEffect, useState } from 'preact/hooks';
import { type Impact, impactAnalysis } from './api';
import { useReloadKey } from './context';

let cached: { version: number; promise: Promise<Impact> } | null = null;

function load(version: number, force: boolean): Promise<Impact> {
  if (!cached || cached.version !== version || force) cached = { version, promise: impactAnalysis() };
  return cached.promise;
}

export function useImpact(enabled: boolean) {
  const version = useReloadKey();
  const [state, setState] = useState<{ data?: Impact; error?: Error; loading: boolean }>({ loading: enabled });
  const [force, setForce] = useState(0);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    setState((s) => ({ data: s.data, loading: true }));
    load(version, force > 0).then(
      (data) => live && setState({ data, loading: false }),
      (error: Error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [enabled, version, force]);
  return { ...state, rerun: () => setForce((f) => f + 1) };
}
