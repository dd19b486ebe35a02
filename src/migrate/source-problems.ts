/**
 * The checks of a Gatekeeper or Kyverno document's own structure: its project's CRD schema
 * (crd-schemas.json, written by scripts/migrate-schemas.mjs from the CRDs in the projects' Go
 * modules). Apart from documents.ts, which knows the kinds without the schemas: these come with
 * the other checks (src/store/checks.ts), not with the first load.
 */
import { fieldPath } from '../base/path';
import { isObject, obj, str, type Obj } from '../base/json';
import { invalid, required, type FieldError } from '../k8s/errors';
import { CONSTRAINT, entryOf, gatekeeperMatch, templateOf, type KindData } from './documents';
import { checkStructure, type Schema } from './structure';
import CRD_SCHEMAS from './crd-schemas.json';

const SCHEMAS: readonly (KindData & { schema: Schema })[] = CRD_SCHEMAS;

/** The schema of a CRD's kind and version (the line of crd-schemas.json that crd-kinds.json's line names). */
const schemaOf = (d: KindData): Schema => SCHEMAS.find((s) => s.group === d.group && s.version === d.version && s.kind === d.kind)!.schema;

/** A template's constraint kind: spec.crd.spec.names.kind. */
const templateKind = (template: unknown): string => str(obj(obj(obj(obj(obj(template).spec).crd).spec).names).kind);

/** The structural schema of a constraint (frameworks' CreateSchema): its parameters follow its template's schema, when there is one. */
function constraintSchema(template: Obj | undefined): Schema {
  const params = obj(obj(obj(obj(obj(template).spec).crd).spec).validation).openAPIV3Schema;
  const match = obj(obj(schemaOf(gatekeeperMatch)).properties).embeddedMatch;
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        properties: {
          match,
          enforcementAction: { type: 'string' },
          scopedEnforcementActions: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                action: { type: 'string' },
                enforcementPoints: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
              },
            },
          },
          // CreateSchema adds parameters only from the template's schema: without one, spec.parameters is unknown (pruned);
          // with no template in the workspace nothing is known of them
          ...(isObject(params) ? { parameters: params } : template ? {} : { parameters: { 'x-kubernetes-preserve-unknown-fields': true } }),
        },
      },
      status: { 'x-kubernetes-preserve-unknown-fields': true },
    },
  };
}

/**
 * The problems of a Gatekeeper or Kyverno document's own structure: its CRD's schema (unknown
 * fields, wrong types, missing required fields), a constraint whose kind no template of the
 * workspace defines, a template whose name is not its kind in lowercase (Gatekeeper refuses it).
 * [] for any other object.
 */
export function sourceProblems(object: unknown, workspace: readonly unknown[]): FieldError[] {
  const entry = entryOf(object);
  if (!entry || !isObject(object)) return [];
  const [kind, data] = entry;
  const out: FieldError[] = [];
  if (!str(obj(object.metadata).name)) out.push(required(fieldPath('metadata', 'name')));
  if (kind === CONSTRAINT) {
    const constraintKind = str(object.kind);
    const template = templateOf(object, workspace);
    if (!template)
      out.push({
        ...invalid(fieldPath('kind'), object.kind, `no ConstraintTemplate in the workspace defines the kind ${constraintKind}`),
        hint: `Gatekeeper makes a constraint's kind from its template (spec.crd.spec.names.kind): without the template ${constraintKind.toLowerCase()} the cluster has no such kind and the constraint cannot be converted. Open the template beside it.`,
      });
    checkStructure(object, constraintSchema(template), fieldPath(), out);
    return out;
  }
  checkStructure(object, schemaOf(data!), fieldPath(), out);
  if (kind.kind === 'ConstraintTemplate') {
    const crdKind = templateKind(object);
    const name = str(obj(object.metadata).name);
    if (!crdKind) out.push(required(fieldPath('spec', 'crd', 'spec', 'names', 'kind'), 'Gatekeeper refuses a template that names no constraint kind'));
    else if (name && name !== crdKind.toLowerCase())
      out.push(
        invalid(
          fieldPath('metadata', 'name'),
          name,
          `must be the lowercase of spec.crd.spec.names.kind (${JSON.stringify(crdKind.toLowerCase())}): Gatekeeper refuses the template otherwise`,
        ),
      );
  }
  return out;
}
