/**
 * A JSON Schema (draft-07) per kind for the YAML editor (monaco-yaml):
 * completion, hover help, enum and type markers, generated from the registry.
 * Semantic validation stays in validate(); the schema only describes shape.
 */
import { apiVersionOf } from './kinds';
import type { Field, KindSpec } from './types';

export type JsonSchema = Record<string, unknown>;

function fieldDescription(field: Field): string {
  const extra: string[] = [];
  if (field.default !== undefined) extra.push(`Default: ${JSON.stringify(field.default)}.`);
  if (field.required) extra.push('Required.');
  if (field.server) extra.push('Set by the server.');
  return [field.help, ...extra].join(' ');
}

function fieldSchema(field: Field): JsonSchema {
  const base: JsonSchema = { title: field.label, description: fieldDescription(field) };
  if (field.default !== undefined) base.default = field.default;
  switch (field.type) {
    case 'string':
      return { ...base, type: ['string', 'null'], ...(field.enum ? { enum: [...field.enum, null] } : {}) };
    case 'integer':
      return { ...base, type: ['integer', 'null'], minimum: field.minimum, maximum: field.maximum };
    case 'boolean':
      return { ...base, type: ['boolean', 'null'] };
    case 'stringList':
      return {
        ...base,
        type: ['array', 'null'],
        items: field.enum ? { type: 'string', enum: [...field.enum] } : { type: 'string', ...(field.suggestions ? { examples: [...field.suggestions] } : {}) },
      };
    case 'stringMap':
      return { ...base, type: ['object', 'null'], additionalProperties: { type: 'string' } };
    case 'object':
      return field.open ? { ...base, type: ['object', 'null'] } : { ...base, ...objectSchema(field.fields) };
    case 'list':
      return { ...base, type: ['array', 'null'], items: { ...objectSchema(field.item.fields), title: field.item.label } };
  }
}

function objectSchema(fields: readonly Field[]): JsonSchema {
  return {
    type: ['object', 'null'],
    properties: Object.fromEntries(fields.map((f) => [f.name, fieldSchema(f)])),
    required: fields.filter((f) => f.required && !f.server).map((f) => f.name),
  };
}

/** The schema of one kind's documents. */
export function jsonSchemaFor(spec: KindSpec): JsonSchema {
  const obj = objectSchema(spec.fields);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: spec.kind,
    description: spec.summary,
    type: 'object',
    properties: {
      apiVersion: {
        type: 'string',
        enum: spec.versions.map((v) => `${spec.group}/${v.name}`),
        default: apiVersionOf(spec),
        description: 'The API group and version.',
      },
      kind: { type: 'string', enum: [spec.kind], description: spec.summary },
      ...(obj.properties as JsonSchema),
    },
    required: ['apiVersion', 'kind', ...(obj.required as string[])],
  };
}
