// Line diff of a model's SQL, base against current (jsdiff), unified, with
// both line numbers; long unchanged stretches fold to a few context lines.
import { diffLines } from 'diff';
import { useMemo, useState } from 'preact/hooks';

interface Line {
  kind: 'same' | 'add' | 'del' | 'fold';
  text: string;
  a?: number;
  b?: number;
  hidden?: number;
}

const CONTEXT = 3;

export function CodeDiff({ base, current }: { base: string | null; current: string | null }) {
  const [unfold, setUnfold] = useState(false);
  const lines = useMemo(() => diff(base ?? '', current ?? '', unfold), [base, current, unfold]);
  const added = lines.filter((l) => l.kind === 'add').length;
  const removed = lines.filter((l) => l.kind === 'del').length;
  if (base === current) return <p class="muted">The SQL is the same in base and current.</p>;
  return (
    <div class="codediff">
      <p class="muted">
        <span class="add-count">+{added}</span> <span class="del-count">−{removed}</span> lines
        {base === null ? ' (new model: no base)' : current === null ? ' (removed model: no current)' : ''}
        <button type="button" class="small" onClick={() => setUnfold(!unfold)}>
          {unfold ? 'fold unchanged' : 'show all lines'}
        </button>
      </p>
      <table class="diff" aria-label="SQL diff, base against current">
        <tbody>
          {lines.map((l, i) =>
            l.kind === 'fold' ? (
              <tr class="fold" key={i}>
                <td colSpan={4}>⋯ {l.hidden} unchanged lines</td>
              </tr>
            ) : (
              <tr class={`line-${l.kind}`} key={i}>
                <td class="ln">{l.a ?? ''}</td>
                <td class="ln">{l.b ?? ''}</td>
                <td class="sign">{l.kind === 'add' ? '+' : l.kind === 'del' ? '−' : ' '}</td>
                <td class="code">{l.text}</td>
              </tr>
            ),
          )}
        </tbody>
      </table>
    </div>
  );
}

function diff(a: string, b: string, unfold: boolean): Line[] {
  const out: Line[] = [];
  let na = 1;
  let nb = 1;
  for (const part of diffLines(a, b)) {
    const texts = part.value.replace(/\n$/, '').split('\n');
    for (const t of texts) {
      if (part.added) out.push({ kind: 'add', text: t, b: nb++ });
      else if (part.removed) out.push({ kind: 'del', text: t, a: na++ });
      else out.push({ kind: 'same', text: t, a: na++, b: nb++ });
    }
  }
  if (unfold) return out;
  const near = new Uint8Array(out.length);
  out.forEach((l, i) => {
    if (l.kind !== 'same') for (let j = Math.max(0, i - CONTEXT); j <= Math.min(out.length - 1, i + CONTEXT); j++) near[j] = 1;
  });
  const folded: Line[] = [];
  for (let i = 0; i < out.length; ) {
    if (near[i]) {
      folded.push(out[i++]);
      continue;
    }
    let j = i;
    while (j < out.length && !near[j]) j++;
    folded.push({ kind: 'fold', text: '', hidden: j - i });
    i = j;
  }
  return folded;
}
