/** Probes the Chromium benchmarks run in the page before its scripts (scripts/bench.mjs, scripts/bench-large.mjs). */

/**
 * The first form's probe, run in the page before its scripts: records when the form appears
 * (window.__formAt), when the main thread is next free after it (__interactiveAt), and when the
 * selected document's problems are in (__checkedAt), ms after navigation start; with `markup`,
 * the page's markup at the moment the form appeared (__markup).
 */
export const formProbe = (markup) => {
  new MutationObserver((_, o) => {
    if (!document.querySelector('form [data-path="metadata.name"]')) return;
    o.disconnect();
    window.__formAt = performance.now();
    if (markup) window.__markup = document.getElementById('root').innerHTML;
    setTimeout(() => (window.__interactiveAt = performance.now()), 0);
  }).observe(document, { childList: true, subtree: true });
  new MutationObserver((_, o) => {
    // The problems list is aria-busy until the selected document's first check is in.
    if (!document.querySelector('section.problems:not([aria-busy]) [data-testid="problem-count"]')) return;
    o.disconnect();
    setTimeout(() => (window.__checkedAt = performance.now()), 0);
  }).observe(document, { childList: true, subtree: true, characterData: true });
};
