/**
 * Parse and serialize a generated 1,000-webhook ValidatingWebhookConfiguration
 * (about 1.1 MB of YAML). Target: parse + serialize ≤ 100 ms.
 *   npx vitest bench --run src/yaml
 *
 * Calibration rows: js-yaml's own event parser (the floor under
 * parseDocuments: it does the tokenizing) and js-yaml's `load` (what a plain
 * js-yaml parse costs, without positions or Kubernetes typing), so numbers
 * taken on a busy machine can be compared with each other.
 */
import { load, parseEvents } from 'js-yaml';
import { bench, describe } from 'vitest';
import { webhookConfiguration } from './fixtures/generate';
import { parseDocuments, serializeDocuments, serializeJSON } from './index';

const object = webhookConfiguration(1000);
const yaml = serializeDocuments([object]);
const json = serializeJSON([object]);

describe('1,000-webhook ValidatingWebhookConfiguration', () => {
  bench('calibration: js-yaml parseEvents (the floor)', () => {
    parseEvents(yaml, {});
  });
  bench('calibration: js-yaml load', () => {
    load(yaml);
  });
  bench('calibration: JSON.stringify', () => {
    JSON.stringify(object, null, 2);
  });
  bench('parseDocuments (YAML)', () => {
    parseDocuments(yaml);
  });
  bench('parseDocuments (YAML) + positionOf the last webhook', () => {
    parseDocuments(yaml).documents[0]!.positions.positionOf('webhooks[999].clientConfig.service.port');
  });
  bench('parseDocuments (JSON)', () => {
    parseDocuments(json);
  });
  bench('serializeDocuments', () => {
    serializeDocuments([object]);
  });
  bench('parse + serialize', () => {
    serializeDocuments(parseDocuments(yaml).documents.map((d) => d.object));
  });
});
