/** A new list element for the "Add" button: a valid starting point where we know one, else the required fields. */
import type { Field, ListField } from '../k8s';
import { TEMPLATES } from '../k8s/templates';

function emptyValue(f: Field): unknown {
  switch (f.type) {
    case 'string':
      return f.enum ? (f.default ?? f.enum[0]) : '';
    case 'integer':
      return f.default ?? 0;
    case 'boolean':
      return false;
    case 'stringList':
      return [];
    case 'stringMap':
      return {};
    case 'object':
      return requiredOf(f.fields);
    case 'list':
      return [];
  }
}

function requiredOf(fields: readonly Field[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => f.required && !f.server).map((f) => [f.name, emptyValue(f)]));
}

const unique = (base: string, taken: Set<unknown>) => {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = base.replace(/^([^.]*)/, `$1-${n}`);
  return name;
};

export function newListItem(field: ListField, existing: readonly unknown[]): unknown {
  const names = new Set(existing.map((e) => (e && typeof e === 'object' ? (e as Record<string, unknown>).name : undefined)));
  if (field.name === 'webhooks') {
    const mutating = field.item.fields.some((f) => f.name === 'reinvocationPolicy');
    const tpl = TEMPLATES[mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration']();
    const webhook = { ...(tpl.webhooks as Record<string, unknown>[])[0] };
    webhook.name = unique(`webhook.example.com`, names);
    return webhook;
  }
  if (field.name === 'rules' || field.name === 'resourceRules' || field.name === 'excludeResourceRules') {
    return { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };
  }
  if (field.name === 'matchConditions') return { name: unique('condition', names), expression: 'true' };
  if (field.name === 'matchExpressions') return { key: '', operator: 'In', values: [] };
  if (field.name === 'validations') return { expression: 'true' };
  if (field.name === 'mutations') return { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } };
  return requiredOf(field.item.fields);
}
