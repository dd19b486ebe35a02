import { useEffect, useState } from 'react';

/**
 * False in a component's first render, true from the next one, which its first passive effect
 * asks for: React runs those after the commit, normally once the browser has painted it. For
 * what the first screen can do without for a frame (a document's first check, its text), so
 * that the form is on screen, and answers input, sooner. useDeferredValue(true, false) waits
 * longer: for the whole background render (every list's elements, the other documents' counts).
 */
export function useAfterFirstPaint(): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => setPainted(true), []);
  return painted;
}
