// An SVG DAG that draws only what is in view. Nodes are <g role="button">
// elements carrying their name and status as text and in aria-label, so they
// are accessible, selectable and testable; a roving tabindex makes the graph
// one Tab stop, and the arrow keys walk it (←/→ parents/children, ↑/↓ the
// same layer, Enter opens, +/− zoom, 0 fits).
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { GraphData, GNode } from '../graphdata';
import { layout, type Layout } from '../layout';

export interface GraphProps {
  data: GraphData;
  label: string;
  nodeWidth?: number;
  nodeHeight?: number;
  selected?: string;
  /** a node to bring into view and focus (search) */
  focus?: { key: string; seq: number };
  /** keys to highlight (search matches) */
  highlight?: Set<string>;
  onOpen: (n: GNode) => void;
}

interface View {
  tx: number;
  ty: number;
  k: number;
}

const MARGIN = 200; // px of world drawn beyond the viewport edges

export function Graph(p: GraphProps) {
  const w = p.nodeWidth ?? 200;
  const h = p.nodeHeight ?? 46;
  const lay: Layout = useMemo(() => {
    const t0 = performance.now();
    const l = layout(p.data.nodes.length, p.data.edges, { nodeWidth: w, nodeHeight: h, rankGap: 70, nodeGap: 14 });
    // Read by the first-render benchmark (internal/web/bench_test.go).
    performance.measure(`ripple:layout:${l.engine}:${p.data.nodes.length}`, { start: t0 });
    return l;
    // Keyed on the edges: new badges on the same structure keep the layout.
  }, [p.data.edges, p.data.nodes.length, w, h]);
  const adj = useMemo(() => adjacency(p.data, lay), [lay]);
  const box = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ w: 800, h: 600 });
  const [view, setView] = useState<View | null>(null);
  const [active, setActive] = useState<number>(-1);
  const wantFocus = useRef(-1);

  useLayoutEffect(() => {
    const el = box.current!;
    const ro = new ResizeObserver(() => setSize({ w: el.clientWidth || 800, h: el.clientHeight || 600 }));
    ro.observe(el);
    setSize({ w: el.clientWidth || 800, h: el.clientHeight || 600 });
    return () => ro.disconnect();
  }, []);

  // A new graph gets a fitted view (null: recomputed as the box resizes)
  // until the user pans, zooms or jumps.
  useEffect(() => {
    setView(null);
    setActive(-1);
    // Effects run after the browser painted: this marks the graph on screen
    // (read by the first-render benchmark).
    performance.mark('ripple:graph-painted');
  }, [lay]);

  useEffect(() => {
    if (!p.focus) return;
    const i = p.data.nodes.findIndex((n) => n.key === p.focus!.key);
    if (i >= 0) {
      setActive(i);
      wantFocus.current = i;
      setView((v) => centreOn(lay, i, size, Math.max(v?.k ?? 1, 0.8)));
    }
  }, [p.focus?.seq]);

  useEffect(() => {
    // The node to focus is kept apart from `active`: a render that was
    // already queued (e.g. by onFocus) must not consume the request.
    const i = wantFocus.current;
    if (i >= 0) {
      const el = box.current?.querySelector<SVGGElement>(`g[data-i="${i}"]`);
      if (el) {
        wantFocus.current = -1;
        el.focus();
      }
    }
  });

  const v = view ?? initialView(p.data, lay, size);
  const visible = useMemo(() => {
    const x0 = (-v.tx - MARGIN) / v.k;
    const y0 = (-v.ty - MARGIN) / v.k;
    const x1 = (size.w - v.tx + MARGIN) / v.k;
    const y1 = (size.h - v.ty + MARGIN) / v.k;
    const show = new Uint8Array(p.data.nodes.length);
    const list: number[] = [];
    for (let i = 0; i < p.data.nodes.length; i++) {
      const x = lay.x[i];
      const y = lay.y[i];
      if (x + w / 2 >= x0 && x - w / 2 <= x1 && y + h / 2 >= y0 && y - h / 2 <= y1) {
        show[i] = 1;
        list.push(i);
      }
    }
    for (const k of [active, p.data.nodes.findIndex((n) => n.key === p.selected)]) {
      if (k >= 0 && !show[k]) {
        show[k] = 1;
        list.push(k);
      }
    }
    const edges = p.data.edges.filter(([a, b]) => show[a] || show[b] || crosses(lay, a, b, x0, x1, y0, y1));
    return { list, edges };
  }, [v, size, lay, p.data, active, p.selected, w, h]);

  const drag = useRef<{ x: number; y: number; v: View; moved: boolean } | null>(null);
  const onPointerDown = (e: PointerEvent) => {
    if ((e.target as Element).closest('g.node')) return;
    drag.current = { x: e.clientX, y: e.clientY, v, moved: false };
    (e.currentTarget as Element).setPointerCapture(e.pointerId);
  };
  const onPointerMove = (e: PointerEvent) => {
    const d = drag.current;
    if (!d) return;
    d.moved = true;
    setView({ ...d.v, tx: d.v.tx + e.clientX - d.x, ty: d.v.ty + e.clientY - d.y });
  };
  const onPointerUp = () => (drag.current = null);
  const zoomAt = (factor: number, cx = size.w / 2, cy = size.h / 2) =>
    setView((cur) => {
      const c = cur ?? v;
      const k = clamp(c.k * factor, 0.05, 2.5);
      return { k, tx: cx - ((cx - c.tx) * k) / c.k, ty: cy - ((cy - c.ty) * k) / c.k };
    });
  const onWheel = (e: WheelEvent) => {
    e.preventDefault();
    const r = (e.currentTarget as Element).getBoundingClientRect();
    zoomAt(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
  };

  const move = (i: number) => {
    if (i < 0) return;
    setActive(i);
    wantFocus.current = i;
    const sx = lay.x[i] * v.k + v.tx;
    const sy = lay.y[i] * v.k + v.ty;
    if (sx < w * v.k || sx > size.w - w * v.k || sy < h * v.k || sy > size.h - h * v.k) setView(centreOn(lay, i, size, v.k));
  };
  const onKeyDown = (e: KeyboardEvent, i: number) => {
    const a = adj;
    switch (e.key) {
      case 'ArrowRight':
        move(a.children[i][0] ?? -1);
        break;
      case 'ArrowLeft':
        move(a.parents[i][0] ?? -1);
        break;
      case 'ArrowDown':
      case 'ArrowUp': {
        const layer = a.layerOf[i];
        const at = layer.indexOf(i) + (e.key === 'ArrowDown' ? 1 : -1);
        move(layer[at] ?? -1);
        break;
      }
      case 'Enter':
      case ' ':
        p.onOpen(p.data.nodes[i]);
        break;
      case '+':
      case '=':
        zoomAt(1.25);
        break;
      case '-':
        zoomAt(0.8);
        break;
      case '0':
        setView(fit(lay, size));
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  const tabStop = active >= 0 ? active : (visible.list[0] ?? -1);
  const lod = v.k < 0.35; // far out: boxes without badges
  return (
    <div class="graph" ref={box}>
      <svg
        role="group"
        aria-label={`${p.label}: ${p.data.nodes.length} nodes`}
        width={size.w}
        height={size.h}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onWheel={onWheel}
      >
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead" />
          </marker>
        </defs>
        <g transform={`translate(${v.tx},${v.ty}) scale(${v.k})`}>
          <g class="edges">
            {visible.edges.map(([a, b]) => (
              <path key={`${a}-${b}`} class={edgeClass(p.data.nodes[a], p.data.nodes[b])} d={curve(lay, a, b, w)} marker-end="url(#arrow)" />
            ))}
          </g>
          {visible.list.map((i) => {
            const n = p.data.nodes[i];
            const cls = ['node', `status-${n.status}`];
            if (n.key === p.selected) cls.push('selected');
            if (p.highlight?.has(n.key)) cls.push('match');
            if (n.members) cls.push('chain');
            return (
              <g
                key={n.key}
                data-i={i}
                data-key={n.key}
                data-status={n.status}
                class={cls.join(' ')}
                role="button"
                // SVG attributes are case-sensitive: tabindex, not tabIndex.
                tabindex={i === tabStop ? 0 : -1}
                aria-label={`${n.label}, ${n.status}${n.badges?.length ? ', ' + n.badges.map((b) => b.text).join(', ') : ''}`}
                aria-pressed={n.key === p.selected}
                transform={`translate(${lay.x[i] - w / 2},${lay.y[i] - h / 2})`}
                onClick={() => {
                  setActive(i);
                  p.onOpen(n);
                }}
                onKeyDown={(e) => onKeyDown(e as KeyboardEvent, i)}
                onFocus={() => setActive(i)}
              >
                <title>{n.members ? `${n.members.length} models on one path — click to expand` : n.label}</title>
                <rect width={w} height={h} rx="6" />
                <text class="name" x="10" y="18">
                  {clip(n.label, w)}
                </text>
                <text class="status" x="10" y="36">
                  {n.sublabel ? clip(`${n.status} · ${n.sublabel}`, w - 10) : n.status}
                </text>
                {!lod && n.badges?.length ? <Badges badges={n.badges} w={w} /> : null}
              </g>
            );
          })}
        </g>
      </svg>
      <div class="graph-controls">
        <button type="button" aria-label="Zoom in" onClick={() => zoomAt(1.25)}>
          +
        </button>
        <button type="button" aria-label="Zoom out" onClick={() => zoomAt(0.8)}>
          −
        </button>
        <button type="button" aria-label="Fit the graph" onClick={() => setView(fit(lay, size))}>
          fit
        </button>
        <span class="engine" title="layout engine">
          {lay.engine} · {visible.list.length}/{p.data.nodes.length} drawn
        </span>
      </div>
    </div>
  );
}

function Badges({ badges, w }: { badges: { text: string; tone: string; title?: string }[]; w: number }) {
  let x = w - 6;
  return (
    <g class="badges">
      {badges
        .slice()
        .reverse()
        .map((b) => {
          const bw = 7 * b.text.length + 10;
          x -= bw + 4;
          return (
            <g class={`badge tone-${b.tone}`} transform={`translate(${x},-9)`} key={b.text}>
              <title>{b.title ?? b.text}</title>
              <rect width={bw} height="16" rx="8" />
              <text x={bw / 2} y="12" text-anchor="middle">
                {b.text}
              </text>
            </g>
          );
        })}
    </g>
  );
}

function clip(s: string, w: number): string {
  const max = Math.floor((w - 16) / 7.8);
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

function clamp(v: number, lo: number, hi: number) {
  return Math.min(hi, Math.max(lo, v));
}

function curve(l: Layout, a: number, b: number, w: number): string {
  const x1 = l.x[a] + w / 2;
  const y1 = l.y[a];
  const x2 = l.x[b] - w / 2;
  const y2 = l.y[b];
  const dx = Math.max(30, (x2 - x1) / 2);
  return `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`;
}

function crosses(l: Layout, a: number, b: number, x0: number, x1: number, y0: number, y1: number) {
  const minX = Math.min(l.x[a], l.x[b]);
  const maxX = Math.max(l.x[a], l.x[b]);
  const minY = Math.min(l.y[a], l.y[b]);
  const maxY = Math.max(l.y[a], l.y[b]);
  return maxX >= x0 && minX <= x1 && maxY >= y0 && minY <= y1;
}

function edgeClass(a: GNode, b: GNode) {
  const hot = (s: string) => s !== 'unchanged';
  return hot(a.status) && hot(b.status) ? 'edge hot' : 'edge';
}

function adjacency(g: GraphData, l: Layout) {
  const n = g.nodes.length;
  const parents: number[][] = Array.from({ length: n }, () => []);
  const children: number[][] = Array.from({ length: n }, () => []);
  for (const [a, b] of g.edges) {
    parents[b].push(a);
    children[a].push(b);
  }
  const byY = (a: number, b: number) => l.y[a] - l.y[b];
  parents.forEach((p) => p.sort(byY));
  children.forEach((c) => c.sort(byY));
  const layers = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const k = Math.round(l.x[i]);
    if (!layers.has(k)) layers.set(k, []);
    layers.get(k)!.push(i);
  }
  const layerOf: number[][] = new Array(n);
  for (const layer of layers.values()) {
    layer.sort(byY);
    for (const i of layer) layerOf[i] = layer;
  }
  return { parents, children, layerOf };
}

function fit(l: Layout, size: { w: number; h: number }): View {
  const k = clamp(Math.min(size.w / (l.width + 40), size.h / (l.height + 40)), 0.05, 1.2);
  return { k, tx: (size.w - l.width * k) / 2, ty: (size.h - l.height * k) / 2 };
}

function centreOn(l: Layout, i: number, size: { w: number; h: number }, k: number): View {
  return { k, tx: size.w / 2 - l.x[i] * k, ty: size.h / 2 - l.y[i] * k };
}

function initialView(g: GraphData, l: Layout, size: { w: number; h: number }): View {
  const f = fit(l, size);
  if (f.k >= 0.5 || g.nodes.length === 0) return f;
  let first = g.nodes.findIndex((n) => n.status === 'modified' || n.status === 'added' || n.status === 'removed');
  if (first < 0) first = 0;
  return centreOn(l, first, size, 0.8);
}
