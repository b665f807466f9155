import { useEffect, useState } from 'preact/hooks';
import { type Info, info as fetchInfo } from './api';
import { InfoContext, ReloadContext } from './context';
import { ChecksScreen } from './screens/checks';
import { CllScreen } from './screens/cll';
import { ImpactScreen } from './screens/impact';
import { LineageScreen } from './screens/lineage';
import { QueryScreen } from './screens/query';
import { fmtTime, href, useRoute } from './util';

/** How often the top bar asks whether the artifacts changed on disk. */
const POLL_MS = 3000;

export function App() {
  const route = useRoute();
  // info is what the screens show; latest is the server's newest answer.
  const [info, setInfo] = useState<Info | null>(null);
  const [latest, setLatest] = useState<Info | null>(null);
  const [reloadKey, setReloadKey] = useState(0);
  const [error, setError] = useState<Error | null>(null);

  useEffect(() => {
    let live = true;
    const poll = async () => {
      try {
        const i = await fetchInfo();
        if (!live) return;
        setError(null);
        setLatest(i);
        setInfo((cur) => cur ?? i);
      } catch (e) {
        if (live) setError(e as Error);
      }
    };
    poll();
    const t = setInterval(poll, POLL_MS);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, []);

  const stale = info && latest && latest.artifactsVersion !== info.artifactsVersion;
  const reload = () => {
    setInfo(latest);
    setReloadKey((k) => k + 1);
  };

  // Screens render at once (the home screen's data was requested before
  // the app started); what depends on the server's info follows it.
  return (
    <InfoContext.Provider value={info}>
      <ReloadContext.Provider value={reloadKey}>
        <TopBar info={latest ?? info} screen={route.screen} />
        {error ? (
          <div class="banner error" role="alert">
            Cannot reach the Ripple server: {error.message}
          </div>
        ) : null}
        {stale ? (
          <div class="banner info" role="alert" data-testid="reload-prompt">
            The dbt artifacts changed on disk.{' '}
            <button type="button" onClick={reload}>
              Reload the review
            </button>
          </div>
        ) : null}
        {info?.loadError ? <div class="banner error">{info.loadError}</div> : null}
        {info?.singleEnv ? (
          <div class="banner warn" data-testid="single-env">
            {info.singleEnvWarning}
          </div>
        ) : null}
        {info?.baseStatus?.status === 'stale' ? (
          <div class="banner warn" data-testid="stale-base">
            Base artifacts are stale: {info.baseStatus.reason}
          </div>
        ) : null}
        <Screen screen={route.screen} args={route.args} />
      </ReloadContext.Provider>
    </InfoContext.Provider>
  );
}

function Screen({ screen, args }: { screen: string; args: string[] }) {
  switch (screen) {
    case 'model':
      return <LineageScreen model={args[0]} />;
    case 'cll':
      return <CllScreen node={args[0]} column={args[1]} />;
    case 'impact':
      return <ImpactScreen />;
    case 'query':
      return <QueryScreen />;
    case 'checks':
      return <ChecksScreen />;
    default:
      return <LineageScreen />;
  }
}

const NAV = [
  ['lineage', 'Lineage'],
  ['impact', 'Impact'],
  ['query', 'Query'],
  ['checks', 'Checklist'],
] as const;

function TopBar({ info, screen }: { info: Info | null; screen: string }) {
  const current = screen === 'model' || screen === 'cll' ? 'lineage' : screen;
  return (
    <header class="topbar">
      <span class="brand">Ripple</span>
      <nav aria-label="Screens">
        {NAV.map(([s, label]) => (
          <a key={s} href={href(s)} aria-current={current === s ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {info ? (
        <dl class="env" aria-label="Environment">
          <dt>project</dt>
          <dd data-testid="project-name">{info.projectName || '—'}</dd>
          <dt>adapter</dt>
          <dd>{info.adapterType || '—'}</dd>
          <dt>base</dt>
          <dd title={info.base.dir}>{info.singleEnv ? 'none' : fmtTime(info.base.generatedAt || info.base.modifiedAt)}</dd>
          <dt>current</dt>
          <dd title={info.current.dir}>{fmtTime(info.current.generatedAt || info.current.modifiedAt)}</dd>
          {info.baseStatus ? (
            <>
              <dt>base status</dt>
              <dd class={`base-${info.baseStatus.status}`} title={info.baseStatus.reason}>
                {info.baseStatus.status}
              </dd>
            </>
          ) : null}
          {info.readOnly ? <dd class="pill">read-only</dd> : null}
        </dl>
      ) : null}
    </header>
  );
}
