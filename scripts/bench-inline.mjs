/**
 * The editor's inline values after a run (target ≤ 50 ms after the run's result is shown): an expression
 * with its Test area open is edited; the page notes when the Test result for the new text is
 * shown and when the first inline value (`.cel-trace-value`, a Monaco after-text decoration)
 * is in the editor, and the row is the time between the two. Used by scripts/bench.mjs.
 */
export async function inlineValuesLag(page, field, runs = 7) {
  const area = page.locator(`[data-testid="cel-test"][data-expression-path="${field}"]`);
  const control = page.locator(`form [data-path="${field}"]`).first();
  await control.focus();
  const editor = page.locator(`[data-testid="cel-editor"][data-expression-path="${field}"]`);
  await editor.locator('.monaco-editor').waitFor({ timeout: 30_000 });
  if (await area.locator('.cel-test-body').isHidden()) await area.locator('.cel-test-toggle').click();
  await page.evaluate((field) => {
    const w = window;
    w.__lags = [];
    let resultAt = NaN;
    let shownResult = '';
    let inlineShown = false;
    new MutationObserver(() => {
      const r = document.querySelector(`[data-testid="cel-test"][data-expression-path="${field}"] [data-testid="cel-result"]`);
      const done = r && !r.classList.contains('stale') && !r.classList.contains('pending') ? (r.textContent ?? '') : '';
      if (!done) shownResult = '';
      else if (done !== shownResult) {
        shownResult = done;
        resultAt = performance.now();
      }
      const has = !!document.querySelector(`[data-testid="cel-editor"][data-expression-path="${field}"] .cel-trace-value`);
      if (has && !inlineShown && !Number.isNaN(resultAt)) w.__lags.push(performance.now() - resultAt);
      inlineShown = has;
      if (!has) resultAt = shownResult ? resultAt : NaN;
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  }, field);
  const lags = [];
  for (let i = 0; i < runs; i++) {
    const before = await page.evaluate(() => window.__lags.length);
    await control.focus();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(`request.userInfo.username == 'u${i}' && request.operation == 'CREATE'`);
    try {
      await page.waitForFunction((n) => window.__lags.length > n, before, { timeout: 15_000 });
      lags.push(await page.evaluate(() => window.__lags[window.__lags.length - 1]));
    } catch {
      lags.push(NaN);
    }
  }
  return lags;
}
