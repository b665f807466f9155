// A results grid with CSV export. Results are capped by the server (2,000
// rows), so the table renders them all.
import { type Frame, sentDecimals } from '../api';
import { columnLabel, columnScale, fmtCell, fmtNum } from '../util';

export interface GridProps {
  frame: Frame | null;
  caption?: string;
  filename?: string;
  /** per-row class, e.g. to colour base/current rows of a value diff detail */
  rowClass?: (row: unknown[]) => string | undefined;
  /** per-cell formatting override */
  format?: (col: string, v: unknown) => string | undefined;
}

export function Grid(p: GridProps) {
  const f = p.frame;
  if (!f) return <p class="muted">No rows.</p>;
  const numeric = f.columns.map((c) => c.type === 'integer' || c.type === 'number');
  const scales = f.columns.map((c, j) => (c.type === 'number' ? columnScale(f.rows.length, (i) => sentDecimals(f.rows[i], j)) : 0));
  return (
    <div class="grid-wrap">
      <div class="grid-head">
        {p.caption ? <strong>{p.caption}</strong> : null}
        <span class="muted">
          {f.rows.length.toLocaleString('en-US')} row{f.rows.length === 1 ? '' : 's'}
          {f.more || (f.totalRows !== undefined && f.totalRows > f.rows.length) ? ` of ${fmtNum(f.totalRows ?? '')} (capped)` : ''}
        </span>
        <button type="button" class="small" onClick={() => download(p.filename ?? 'result.csv', toCSV(f))}>
          Export CSV
        </button>
      </div>
      <div class="grid-scroll">
        <table class="grid">
          {p.caption ? <caption class="sr-only">{p.caption}</caption> : null}
          <thead>
            <tr>
              {f.columns.map((c) => (
                <th scope="col" key={c.key} title={c.name === columnLabel(c.name) ? c.type : `${c.name} (${c.type})`}>
                  {columnLabel(c.name)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {f.rows.map((r, i) => (
              <tr key={i} class={p.rowClass?.(r)}>
                {r.map((v, j) => (
                  <td key={j} class={numeric[j] ? 'num' : v === null ? 'null' : undefined}>
                    {v === null ? 'null' : (p.format?.(f.columns[j].key, v) ?? fmtCell(v, f.columns[j].name, f.columns[j].type, scales[j]))}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** RFC 4180 CSV of a frame (nulls as empty fields). */
export function toCSV(f: Frame): string {
  const cell = (v: unknown) => {
    if (v === null || v === undefined) return '';
    const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [f.columns.map((c) => cell(c.name)).join(','), ...f.rows.map((r) => r.map(cell).join(','))].join('\r\n') + '\r\n';
}

export function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
