/**
 * applyEdits on a generated 1,000-webhook ValidatingWebhookConfiguration (about 1.1 MB of YAML).
 * Target: one scalar ≤ 2 ms (docs/performance.md), with the text's tree known from the previous edit, as
 * in the store, where each keystroke edits the text the last one returned.
 *   npx vitest bench --run src/yaml/edit.bench.ts
 */
import { bench, describe } from 'vitest';
import { webhookConfiguration } from './fixtures/generate';
import { applyEdits, parseDocuments, serializeDocuments } from './index';

const object = webhookConfiguration(1000);
let text = serializeDocuments([object]);
let n = 0;
let inserted = text;

describe('applyEdits, 1,000-webhook ValidatingWebhookConfiguration', () => {
  bench(
    'one scalar (the next keystroke)',
    () => {
      const r = applyEdits(text, [{ path: 'webhooks[500].timeoutSeconds', value: n++ % 2 ? 5 : 15 }]);
      if (r.error) throw new Error(r.error.message);
      text = r.text;
    },
    { warmupIterations: 5 },
  );
  bench('one scalar, text never seen (includes its parse)', () => {
    const fresh = `${text}# ${n}\n`;
    applyEdits(fresh, [{ path: 'webhooks[500].timeoutSeconds', value: n++ % 2 ? 5 : 15 }]);
  });
  bench('a new key (parses the result to check it)', () => {
    const r = applyEdits(inserted, [{ path: `webhooks[500].x${n++}`, value: 'y' }]);
    if (r.error) throw new Error(r.error.message);
    inserted = r.text;
  });
  bench('calibration: parseDocuments of the same text', () => {
    parseDocuments(text);
  });
});
