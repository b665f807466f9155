// The SQL editor: CodeMirror (loaded on demand), with a plain textarea
// until it arrives, so the page is usable at once.
import { useEffect, useRef, useState } from 'preact/hooks';

export function SqlEditor(p: { value: string; onChange: (s: string) => void; onRun: () => void; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [ready, setReady] = useState(false);
  const latest = useRef(p);
  latest.current = p;
  useEffect(() => {
    let view: { destroy(): void } | undefined;
    let gone = false;
    import('./cm').then(({ createEditor }) => {
      if (gone || !host.current) return;
      view = createEditor(host.current, latest.current.value, (s) => latest.current.onChange(s), () => latest.current.onRun(), latest.current.label);
      setReady(true);
    });
    return () => {
      gone = true;
      view?.destroy();
    };
  }, []);
  return (
    <div class="editor" data-ready={ready ? 'true' : 'false'}>
      <div ref={host} />
      {ready ? null : (
        <textarea
          aria-label={p.label}
          value={p.value}
          rows={6}
          onInput={(e) => p.onChange((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => (e.ctrlKey || e.metaKey) && e.key === 'Enter' && p.onRun()}
        />
      )}
    </div>
  );
}
