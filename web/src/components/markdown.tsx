// A small Markdown preview for the PR summary: the subset it uses
// (headings, tables, lists, fenced code, `code`, **bold**, paragraphs),
// built as elements, never as HTML strings.
import type { ComponentChildren } from 'preact';

export function Markdown({ text }: { text: string }) {
  const out: ComponentChildren[] = [];
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < lines.length; ) {
    const l = lines[i];
    const fence = l.match(/^```(\w*)/);
    if (fence) {
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) body.push(lines[i]);
      i++;
      out.push(
        <pre class={`code lang-${fence[1] || 'text'}`} key={out.length}>
          {body.join('\n')}
        </pre>,
      );
      continue;
    }
    const h = l.match(/^(#{1,6})\s+(.*)/);
    if (h) {
      const Tag = `h${Math.min(6, h[1].length + 1)}` as 'h2';
      out.push(<Tag key={out.length}>{inline(h[2])}</Tag>);
      i++;
      continue;
    }
    if (l.startsWith('|')) {
      const rows: string[][] = [];
      for (; i < lines.length && lines[i].startsWith('|'); i++) rows.push(cells(lines[i]));
      const [head, sep, ...body] = rows;
      const hasHead = sep && sep.every((c) => /^:?-+:?$/.test(c.trim()));
      out.push(
        <table class="grid compact" key={out.length}>
          {hasHead ? (
            <thead>
              <tr>{head.map((c, j) => <th key={j}>{inline(c)}</th>)}</tr>
            </thead>
          ) : null}
          <tbody>
            {(hasHead ? body : rows).map((r, k) => (
              <tr key={k}>{r.map((c, j) => <td key={j}>{inline(c)}</td>)}</tr>
            ))}
          </tbody>
        </table>,
      );
      continue;
    }
    if (/^\s*[-*]\s+/.test(l)) {
      const items: string[] = [];
      for (; i < lines.length && /^\s*[-*]\s+/.test(lines[i]); i++) items.push(lines[i].replace(/^\s*[-*]\s+/, ''));
      out.push(
        <ul key={out.length}>
          {items.map((t, k) => (
            <li key={k}>{inline(t)}</li>
          ))}
        </ul>,
      );
      continue;
    }
    if (l.trim() === '') {
      i++;
      continue;
    }
    const para: string[] = [];
    for (; i < lines.length && lines[i].trim() !== '' && !/^(#|\||```|\s*[-*]\s)/.test(lines[i]); i++) para.push(lines[i]);
    out.push(<p key={out.length}>{inline(para.join(' '))}</p>);
  }
  return <div class="markdown">{out}</div>;
}

function cells(row: string): string[] {
  return row.replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
}

function inline(s: string): ComponentChildren[] {
  const parts: ComponentChildren[] = [];
  const re = /(`[^`]+`|\*\*[^*]+\*\*)/g;
  let last = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (m.index > last) parts.push(s.slice(last, m.index));
    const t = m[0];
    parts.push(t.startsWith('`') ? <code key={m.index}>{t.slice(1, -1)}</code> : <strong key={m.index}>{t.slice(2, -2)}</strong>);
    last = m.index + t.length;
  }
  if (last < s.length) parts.push(s.slice(last));
  return parts;
}
