/**
 * A long list rendered in blocks, only the blocks near the view (a keystroke in a
 * 10,000-webhook configuration must not re-render 10,000 form elements). A block out of view is
 * an empty box of the height it had when last shown (or an estimate), so the scroll bar and
 * scroll position stay put. A block is shown when it comes within a margin of the scrolling
 * pane's view, and always when it holds the element to reveal (a problem's "reveal", a focus
 * request), so focusing a field works as in a short list.
 */
import { memo, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

/** Lists longer than this are virtualised (a 200-webhook list renders whole, as before). */
export const VIRTUAL_ABOVE = 300;
/** Elements per block. */
export const BLOCK = 25;
/** How far beyond the pane's view a block is rendered (px): Tab and scrolling reach rendered rows first. */
const MARGIN_PX = 1500;
/** A collapsed element's height before any block was measured (px). */
const ROW_ESTIMATE_PX = 40;

interface Sizes {
  /** Measured heights of blocks, by first index. */
  heights: Map<number, number>;
  /** Average height of a row of the measured blocks. */
  row: number;
}

/** The nearest ancestor that scrolls (the form pane; the panes column on a narrow screen). */
function scrollParent(el: HTMLElement): HTMLElement | null {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const o = getComputedStyle(p).overflowY;
    if (o === 'auto' || o === 'scroll') return p;
  }
  return null;
}

export interface VirtualListProps<T> {
  items: readonly T[];
  /** Renders one element (read at render time: a new function does not re-render the blocks). */
  renderItem: (item: T, index: number) => ReactNode;
  /** The index of an element that must be rendered (revealed or focused). */
  reveal?: number;
  /** What else the rendered elements depend on: a change re-renders every shown block. */
  deps: readonly unknown[];
}

export function VirtualList<T>({ items, renderItem, reveal, deps }: VirtualListProps<T>) {
  const render = useRef(renderItem);
  render.current = renderItem;
  const sizes = useRef<Sizes>({ heights: new Map(), row: ROW_ESTIMATE_PX }).current;
  const blocks: ReactNode[] = [];
  for (let start = 0; start < items.length; start += BLOCK) {
    const end = Math.min(items.length, start + BLOCK);
    blocks.push(
      <Block
        key={start}
        start={start}
        end={end}
        items={items}
        last={end === items.length}
        render={render as React.RefObject<(item: unknown, index: number) => ReactNode>}
        sizes={sizes}
        reveal={reveal !== undefined && reveal >= start && reveal < end}
        deps={deps}
      />,
    );
  }
  return <>{blocks}</>;
}

interface BlockProps {
  start: number;
  end: number;
  items: readonly unknown[];
  /** Holds the list's last element (its "move down" is disabled). */
  last: boolean;
  render: React.RefObject<(item: unknown, index: number) => ReactNode>;
  sizes: Sizes;
  reveal: boolean;
  deps: readonly unknown[];
}

/** A block re-renders when one of its own elements changed (the store shares unchanged ones), not when another block's did. */
function sameBlock(a: BlockProps, b: BlockProps): boolean {
  if (a.start !== b.start || a.end !== b.end || a.last !== b.last || a.reveal !== b.reveal || a.sizes !== b.sizes) return false;
  if (a.deps.length !== b.deps.length || a.deps.some((d, i) => !Object.is(d, b.deps[i]))) return false;
  for (let i = a.start; i < a.end; i++) if (a.items[i] !== b.items[i]) return false;
  return true;
}

const Block = memo(function Block({ start, end, items, render, sizes, reveal }: BlockProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [near, setNear] = useState(start === 0);
  const shown = near || reveal;
  useEffect(() => {
    const el = ref.current!;
    const io = new IntersectionObserver(
      ([e]) => {
        // Leaving the view: remember its height, so its empty box keeps the list's length.
        if (!e.isIntersecting && el.childElementCount) sizes.heights.set(start, el.getBoundingClientRect().height);
        setNear(e.isIntersecting);
      },
      { root: scrollParent(el), rootMargin: `${MARGIN_PX}px 0px` },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [start, sizes]);
  useLayoutEffect(() => {
    if (!shown || !ref.current) return;
    const h = ref.current.getBoundingClientRect().height;
    if (h > 0) {
      sizes.heights.set(start, h);
      sizes.row = h / (end - start);
    }
  });
  const rows: ReactNode[] = [];
  if (shown) for (let i = start; i < end; i++) rows.push(render.current(items[i], i));
  return (
    <div ref={ref} className="list-block" style={shown ? undefined : { height: sizes.heights.get(start) ?? (end - start) * sizes.row }}>
      {rows}
    </div>
  );
}, sameBlock);
