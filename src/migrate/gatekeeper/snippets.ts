/**
 * The CEL that Gatekeeper v3.23 adds to every ValidatingAdmissionPolicy it generates, copied byte
 * for byte from pkg/drivers/k8scel/transform/cel_snippets.go (tabs and newlines included: the
 * generated objects are compared with Gatekeeper's own output). Generated from that file; do not edit.
 */

export const MATCH_KINDS =
  '\n\t!has(params.spec) ? true: (\n\t\t!has(params.spec.match) ? true: (\n\t\t\t!has(params.spec.match.kinds) ? true : (\n\t\t\t\tparams.spec.match.kinds.exists(groupskinds,\n\t\t\t\t\t(!has(groupskinds.kinds) || size(groupskinds.kinds) == 0 || "*" in groupskinds.kinds || request.kind.kind in groupskinds.kinds) &&\n\t\t\t\t\t(!has(groupskinds.apiGroups) || size(groupskinds.apiGroups) == 0 || "*" in groupskinds.apiGroups || request.kind.group in groupskinds.apiGroups)\n\t\t\t\t)\n\t\t\t)\n\t\t)\n\t)\n\t';

export const MATCH_NAME_GLOB =
  '\n\t!has(params.spec) ? true: (\n\t\t!has(params.spec.match) ? true: (\n\t\t\t!has(params.spec.match.name) ? true : (\n\t\t\t\t[object, oldObject].exists(obj,\n\t\t\t\t\tobj != null && (\n\t\t\t\t\t\t(has(obj.metadata.generateName) && obj.metadata.generateName != "" && params.spec.match.name.endsWith("*") && string(obj.metadata.generateName).matches("^" + string(params.spec.match.name).replace("*", ".*") + "$")) ||\n\t\t\t\t\t\t(has(obj.metadata.name) && string(obj.metadata.name).matches("^" + string(params.spec.match.name).replace("*", ".*") + "$"))\n\t\t\t\t\t)\n\t\t\t\t)\n\t\t\t)\n\t\t)\n\t)\n\t';

export const MATCH_NAMESPACES_GLOB =
  '\n\t!has(params.spec) ? true: (\n\t\t!has(params.spec.match) ? true: (\n\t\t\t!has(params.spec.match.namespaces) ? true : (\n\t\t\t\t[object, oldObject].exists(obj,\n\t\t\t\t\tobj != null && (\n\t\t\t\t\t\t// cluster-scoped objects always match\n\t\t\t\t\t\t!has(obj.metadata.namespace) || obj.metadata.namespace == "" ? true : (\n\t\t\t\t\t\t\tparams.spec.match.namespaces.exists(nsMatcher,\n\t\t\t\t\t\t\t\t(string(obj.metadata.namespace).matches("^" + string(nsMatcher).replace("*", ".*") + "$"))\n\t\t\t\t\t\t\t)\n\t\t\t\t\t\t)\n\t\t\t\t\t)\n\t\t\t\t)\n\t\t\t)\n\t\t)\n\t)\n\t';

export const MATCH_EXCLUDED_NAMESPACES_GLOB =
  '\n\t!has(params.spec) ? true: (\n\t\t!has(params.spec.match) ? true: (\n\t\t\t!has(params.spec.match.excludedNamespaces) ? true : (\n\t\t\t\t[object, oldObject].exists(obj,\n\t\t\t\t\tobj != null && (\n\t\t\t\t\t\t// cluster-scoped objects always match\n\t\t\t\t\t\t!has(obj.metadata.namespace) || obj.metadata.namespace == "" ? true : (\n\t\t\t\t\t\t\t!params.spec.match.excludedNamespaces.exists(nsMatcher,\n\t\t\t\t\t\t\t\t(string(obj.metadata.namespace).matches("^" + string(nsMatcher).replace("*", ".*") + "$"))\n\t\t\t\t\t\t\t)\n\t\t\t\t\t\t)\n\t\t\t\t\t)\n\t\t\t\t)\n\t\t\t)\n\t\t)\n\t)\n\t';

export const ANY_OBJECT = 'has(request.operation) && request.operation == "DELETE" && object == null ? oldObject : object';
export const PARAMS = '!has(params.spec) ? null : !has(params.spec.parameters) ? null: params.spec.parameters';
