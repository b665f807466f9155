// Grouped horizontal bars, base against current, in plain SVG (a chart
// library would weigh more than the whole UI for two bar charts).
import { fmtNum } from '../util';

export interface BarsProps {
  title: string;
  labels: string[];
  base: number[];
  current: number[];
}

export function Bars(p: BarsProps) {
  const max = Math.max(1, ...p.base, ...p.current);
  const row = 30;
  const labelW = 150;
  const barW = 360;
  const height = p.labels.length * row + 24;
  return (
    <figure class="bars">
      <figcaption>
        {p.title} <span class="legend-base">base</span> <span class="legend-current">current</span>
      </figcaption>
      <svg width={labelW + barW + 120} height={height} role="img" aria-label={p.title}>
        {p.labels.map((l, i) => {
          const y = i * row + 4;
          const b = p.base[i] ?? 0;
          const c = p.current[i] ?? 0;
          return (
            <g key={l + i} class="bar-row" data-label={l}>
              <text x={labelW - 6} y={y + 16} text-anchor="end" class="bar-label">
                {l.length > 22 ? l.slice(0, 21) + '…' : l}
              </text>
              <rect class="bar-base" x={labelW} y={y} width={(b / max) * barW} height="11">
                <title>{`${l} — base ${fmtNum(b)}`}</title>
              </rect>
              <rect class="bar-current" x={labelW} y={y + 13} width={(c / max) * barW} height="11">
                <title>{`${l} — current ${fmtNum(c)}`}</title>
              </rect>
              <text x={labelW + Math.max(b, c) / max * barW + 6} y={y + 16} class="bar-value">
                {b === c ? fmtNum(b) : `${fmtNum(b)} → ${fmtNum(c)}`}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
