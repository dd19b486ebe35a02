/**
 * Hand-written scenarios for the admission differential test, each about one part of the chain.
 * The request is the simulator's (src/request model); the Go oracle reads the same JSON. The
 * generated ones: ./random-scenarios.ts; the oracle: ../README.md.
 */
import {
  addLabel,
  anyRule,
  cmRequest,
  cmRule,
  configMap,
  hook,
  map,
  mapb,
  mutating,
  ns,
  reviewGroupsRule,
  scenario as s,
  subjectAccessReview,
  tokenReview,
  tokenReviewRule,
  USERS,
  validating,
  vap,
  vapb,
  type OracleScenario,
} from './scenario-builders';

/** A scenario in the Namespaces every hand-written one has (so they share an apiserver). */
export const scenario = s;

/** Hand-written: one behaviour each. */
export const HAND_WRITTEN: readonly OracleScenario[] = [
  s(
    'mutating webhooks in configuration-name order, patches applied in turn',
    [mutating('b-config', hook('b.example.com')), mutating('a-config', hook('a.example.com'))],
    cmRequest(),
    {
      'a.example.com': addLabel('first', 'a'),
      'b.example.com': addLabel('second', 'b'),
    },
  ),
  s(
    'reinvocation: an IfNeeded webhook is called again after a later webhook changed the object',
    [mutating('a-config', hook('a.example.com', { reinvocationPolicy: 'IfNeeded' })), mutating('b-config', hook('b.example.com'))],
    cmRequest(),
    {
      'a.example.com': 'allow',
      'b.example.com': addLabel('b', 'yes'),
    },
  ),
  s(
    'no reinvocation when nothing changed after the IfNeeded webhook',
    [mutating('a-config', hook('a.example.com', { reinvocationPolicy: 'IfNeeded' }), hook('a2.example.com'))],
    cmRequest(),
    {
      'a.example.com': addLabel('a', 'yes'),
    },
  ),
  s(
    'a webhook patch adding a label to an object without labels',
    [mutating('m', hook('m.example.com'))],
    cmRequest({ object: configMap('nolabels', 'team-a', null) }),
    {
      'm.example.com': addLabel('x', 'y'),
    },
  ),
  s(
    'namespaceSelector matches the namespace labels (prod: called, denies)',
    [validating('v', hook('prod-only.example.com', { namespaceSelector: { matchLabels: { env: 'prod' } } }))],
    cmRequest(),
    { 'prod-only.example.com': 'deny' },
  ),
  s(
    'namespaceSelector excludes a namespace (dev: not called)',
    [validating('v', hook('prod-only.example.com', { namespaceSelector: { matchLabels: { env: 'prod' } } }))],
    cmRequest({ object: configMap('settings', 'team-b') }),
    {
      'prod-only.example.com': 'deny',
    },
  ),
  s(
    'namespaceSelector matchExpressions NotIn',
    [validating('v', hook('not-dev.example.com', { namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] } }))],
    cmRequest(),
    { 'not-dev.example.com': 'deny' },
  ),
  s(
    'objectSelector matches the object labels',
    [validating('v', hook('web-only.example.com', { objectSelector: { matchLabels: { app: 'web' } } }))],
    cmRequest(),
    { 'web-only.example.com': 'deny' },
  ),
  s('objectSelector does not match', [validating('v', hook('db-only.example.com', { objectSelector: { matchLabels: { app: 'db' } } }))], cmRequest(), {
    'db-only.example.com': 'deny',
  }),
  s(
    'matchConditions true: called',
    [validating('v', hook('mc.example.com', { matchConditions: [{ name: 'is-settings', expression: "object.metadata.name == 'settings'" }] }))],
    cmRequest(),
    { 'mc.example.com': 'deny' },
  ),
  s(
    'matchConditions false: not called',
    [validating('v', hook('mc.example.com', { matchConditions: [{ name: 'is-other', expression: "object.metadata.name == 'other'" }] }))],
    cmRequest(),
    { 'mc.example.com': 'deny' },
  ),
  s(
    'matchConditions on the user',
    [validating('v', hook('alice.example.com', { matchConditions: [{ name: 'alice', expression: "request.userInfo.username == 'alice'" }] }))],
    cmRequest({ userInfo: USERS.bob }),
    {
      'alice.example.com': 'deny',
    },
  ),
  s(
    'matchCondition error with failurePolicy Fail rejects',
    [validating('v', hook('err.example.com', { matchConditions: [{ name: 'missing-key', expression: "object.data['absent'] == 'x'" }] }))],
    cmRequest(),
    {},
  ),
  s(
    'matchCondition error with failurePolicy Ignore skips',
    [
      validating(
        'v',
        hook('err.example.com', { failurePolicy: 'Ignore', matchConditions: [{ name: 'missing-key', expression: "object.data['absent'] == 'x'" }] }),
      ),
    ],
    cmRequest(),
    {},
  ),
  s('unavailable webhook, failurePolicy Fail: rejected', [validating('v', hook('down.example.com'))], cmRequest(), { 'down.example.com': 'unavailable' }),
  s(
    'unavailable webhook, failurePolicy Ignore: allowed',
    [mutating('m', hook('down.example.com', { failurePolicy: 'Ignore' })), validating('v', hook('up.example.com'))],
    cmRequest(),
    {
      'down.example.com': 'unavailable',
    },
  ),
  s(
    'dry run to a webhook with sideEffects NoneOnDryRun is sent',
    [validating('v', hook('nodry.example.com', { sideEffects: 'NoneOnDryRun' }))],
    cmRequest(),
    {},
  ),
  s('rules: an UPDATE-only webhook is not called on CREATE', [validating('v', hook('upd.example.com', { rules: [cmRule(['UPDATE'])] }))], cmRequest(), {
    'upd.example.com': 'deny',
  }),
  s(
    'rules: resources * and a wildcard group',
    [validating('v', hook('all.example.com', { rules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] }))],
    cmRequest(),
    {
      'all.example.com': 'deny',
    },
  ),
  s('validating webhook warnings reach the client', [validating('v', hook('warn.example.com'))], cmRequest(), {
    'warn.example.com': { warnings: ['this config map is deprecated'] },
  }),
  s('validating webhook answering with a patch', [validating('v', hook('vpatch.example.com'))], cmRequest(), { 'vpatch.example.com': addLabel('x', 'y') }),
  s(
    'VAP Deny',
    [vap('max-one-key', { validations: [{ expression: 'size(object.data) <= 1', message: 'at most one key' }] }), vapb('max-one-key-b', 'max-one-key')],
    cmRequest({ object: configMap('settings', 'team-a', { app: 'web' }, { a: '1', b: '2' }) }),
  ),
  s(
    'VAP Warn',
    [
      vap('max-one-key', { validations: [{ expression: 'size(object.data) <= 1', message: 'at most one key' }] }),
      vapb('max-one-key-b', 'max-one-key', { validationActions: ['Warn'] }),
    ],
    cmRequest({ object: configMap('settings', 'team-a', { app: 'web' }, { a: '1', b: '2' }) }),
  ),
  s(
    'VAP Audit only',
    [vap('max-one-key', { validations: [{ expression: 'size(object.data) <= 1' }] }), vapb('max-one-key-b', 'max-one-key', { validationActions: ['Audit'] })],
    cmRequest({ object: configMap('settings', 'team-a', { app: 'web' }, { a: '1', b: '2' }) }),
  ),
  s(
    // the dispatcher appends the error to the denied decisions whatever validationActions say
    'VAP audit annotation that errs under Fail, a Warn binding',
    [
      vap('p', { validations: [{ expression: 'true' }], auditAnnotations: [{ key: 'absent', valueExpression: "string(object.data['absent'])" }] }),
      vapb('pb', 'p', { validationActions: ['Warn'] }),
    ],
    cmRequest(),
  ),
  s(
    // the privileged group heads the apiserver's authorizer union (pkg/kubeapiserver/authorizer/reload.go);
    // this server authorizes with AlwaysAllow besides, so the scenario holds the simulator's answer
    // for system:masters, not which authorizer gave the apiserver's
    'VAP authorizer check by a member of system:masters',
    [
      vap('can-delete', {
        validations: [{ expression: "authorizer.group('').resource('configmaps').namespace(request.namespace).check('delete').allowed()" }],
      }),
      vapb('can-delete-b', 'can-delete'),
    ],
    cmRequest({ userInfo: { username: 'root', groups: ['system:masters', 'system:authenticated'] } }),
  ),
  s(
    'VAP audit annotation that errs under Ignore',
    [
      vap('p', {
        failurePolicy: 'Ignore',
        validations: [{ expression: 'true' }],
        auditAnnotations: [{ key: 'absent', valueExpression: "string(object.data['absent'])" }],
      }),
      vapb('pb', 'p'),
    ],
    cmRequest(),
  ),
  s(
    'VAP messageExpression and reason',
    [
      vap('p', {
        validations: [
          { expression: "object.metadata.name != 'settings'", messageExpression: "'name ' + object.metadata.name + ' is reserved'", reason: 'Forbidden' },
        ],
      }),
      vapb('pb', 'p'),
    ],
    cmRequest(),
  ),
  s(
    'VAP params from a ConfigMap',
    [
      configMap('limits', 'team-a', null, { maxKeys: '1' }),
      vap('param-limit', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        validations: [{ expression: 'size(object.data) <= int(params.data.maxKeys)', message: 'too many keys' }],
      }),
      vapb('param-limit-b', 'param-limit', { paramRef: { name: 'limits', namespace: 'team-a', parameterNotFoundAction: 'Deny' } }),
    ],
    cmRequest({ object: configMap('settings', 'team-a', { app: 'web' }, { a: '1', b: '2' }) }),
  ),
  s(
    'VAP param not found, parameterNotFoundAction Deny',
    [
      vap('param-limit', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'true' }] }),
      vapb('param-limit-b', 'param-limit', { paramRef: { name: 'absent', namespace: 'team-a', parameterNotFoundAction: 'Deny' } }),
    ],
    cmRequest(),
  ),
  s(
    'VAP binding matchResources namespaceSelector',
    [
      vap('p', { validations: [{ expression: 'false', message: 'no' }] }),
      vapb('pb', 'p', { matchResources: { namespaceSelector: { matchLabels: { env: 'dev' } } } }),
    ],
    cmRequest(),
  ),
  s(
    'VAP binding excludeResourceRules',
    [
      vap('p', { validations: [{ expression: 'false', message: 'no' }] }),
      vapb('pb', 'p', { matchResources: { excludeResourceRules: [{ ...cmRule(), resourceNames: ['settings'] }] } }),
    ],
    cmRequest(),
  ),
  s(
    'VAP variables and request.userInfo.groups',
    [
      vap('admins-only', {
        variables: [{ name: 'isAdmin', expression: "'team-a-admins' in request.userInfo.groups" }],
        validations: [{ expression: 'variables.isAdmin', message: 'admins only' }],
      }),
      vapb('admins-only-b', 'admins-only'),
    ],
    cmRequest({ userInfo: USERS.bob }),
  ),
  s(
    'a VAP deny stops the validating webhooks',
    [vap('p', { validations: [{ expression: 'false', message: 'no' }] }), vapb('pb', 'p'), validating('v', hook('after.example.com'))],
    cmRequest(),
  ),
  s(
    'MAP ApplyConfiguration adds a label',
    [
      map('add-team', {
        mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}' } }],
      }),
      mapb('add-team-b', 'add-team'),
    ],
    cmRequest(),
  ),
  s(
    'MAP JSONPatch adds an annotation',
    [
      map('annotate', {
        mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/annotations', value: {'checked': 'yes'}}]" } }],
      }),
      mapb('annotate-b', 'annotate'),
    ],
    cmRequest(),
  ),
  s(
    'MAP then webhook: the IfNeeded MAP runs again after the webhook patched',
    [
      map('add-team', {
        reinvocationPolicy: 'IfNeeded',
        mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}' } }],
      }),
      mapb('add-team-b', 'add-team'),
      mutating('m', hook('m.example.com')),
    ],
    cmRequest(),
    { 'm.example.com': addLabel('hooked', 'yes') },
  ),
  s(
    'a webhook sees the MAP mutation, then a VAP checks the result',
    [
      map('add-team', {
        mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}' } }],
      }),
      mapb('add-team-b', 'add-team'),
      vap('needs-team', { validations: [{ expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: 'team label required' }] }),
      vapb('needs-team-b', 'needs-team'),
    ],
    cmRequest(),
  ),
  s(
    'UPDATE: a webhook for UPDATE sees the new object; a VAP compares with oldObject',
    [
      vap('immutable-mode', { validations: [{ expression: 'object.data.mode == oldObject.data.mode', message: 'mode is immutable' }] }),
      vapb('immutable-mode-b', 'immutable-mode'),
      validating('v', hook('upd.example.com', { rules: [cmRule(['UPDATE'])] })),
    ],
    cmRequest({ operation: 'UPDATE', object: configMap('settings', 'team-a', { app: 'web' }, { mode: 'slow' }), oldObject: configMap() }),
  ),
  s(
    'DELETE: a webhook on DELETE denies',
    [validating('v', hook('del.example.com', { rules: [cmRule(['DELETE'])] }))],
    cmRequest({ operation: 'DELETE', oldObject: configMap() }),
    {
      'del.example.com': 'deny',
    },
  ),
  s(
    'DELETE: a VAP reads oldObject',
    [
      vap('keep-web', {
        matchConstraints: { resourceRules: [cmRule(['DELETE'])] },
        validations: [{ expression: "oldObject.metadata.labels.app != 'web'", message: 'web config maps stay' }],
      }),
      vapb('keep-web-b', 'keep-web'),
    ],
    cmRequest({ operation: 'DELETE', oldObject: configMap() }),
  ),
  s(
    'Namespace CREATE: namespaceSelector matches the object itself',
    [
      validating(
        'v',
        hook('ns.example.com', {
          rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['namespaces'] }],
          namespaceSelector: { matchLabels: { env: 'qa' } },
        }),
      ),
    ],
    {
      operation: 'CREATE',
      resource: { group: '', version: 'v1', resource: 'namespaces' },
      kind: { group: '', version: 'v1', kind: 'Namespace' },
      name: 'team-q',
      userInfo: USERS.alice,
      dryRun: true,
      object: ns('team-q', { env: 'qa' }),
    },
    { 'ns.example.com': 'deny' },
  ),
  s(
    'warnings from a VAP Warn binding and from a webhook are both kept',
    [
      vap('warn-p', { validations: [{ expression: 'false', message: 'just saying' }] }),
      vapb('warn-pb', 'warn-p', { validationActions: ['Warn'] }),
      validating('v', hook('warns.example.com')),
    ],
    cmRequest(),
    { 'warns.example.com': { warnings: ['from the webhook'] } },
  ),
  s(
    'an empty labels map is dropped when the object is serialized: a patch adding a label under it fails',
    [mutating('m', hook('m.example.com'))],
    cmRequest({ object: configMap('settings', 'team-a', {}) }),
    {
      'm.example.com': addLabel('x', 'y'),
    },
  ),
  s(
    'a mutating webhook denial stops the chain',
    [mutating('a', hook('a.example.com')), mutating('b', hook('b.example.com')), validating('v', hook('v.example.com'))],
    cmRequest(),
    { 'a.example.com': 'deny' },
  ),
  s(
    'every validating webhook is called even when one denies',
    [validating('v1', hook('one.example.com')), validating('v2', hook('two.example.com'))],
    cmRequest(),
    { 'one.example.com': 'deny' },
  ),
  s(
    'a MAP whose expression fails at run time, failurePolicy Fail',
    [
      map('bad', {
        mutations: [
          { patchType: 'ApplyConfiguration', applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'v': object.data['absent']}}}" } },
        ],
      }),
      mapb('bad-b', 'bad'),
    ],
    cmRequest(),
  ),
  s(
    'a MAP whose expression fails at run time, failurePolicy Ignore',
    [
      map('bad', {
        failurePolicy: 'Ignore',
        mutations: [
          { patchType: 'ApplyConfiguration', applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'v': object.data['absent']}}}" } },
        ],
      }),
      mapb('bad-b', 'bad'),
    ],
    cmRequest(),
  ),
  // the review resources: never sent to admission policies; at 1.36 still sent to webhooks (not from 1.37)
  s(
    'TokenReview: a VAP that would deny it is not evaluated',
    [
      vap('deny-reviews', { matchConstraints: { resourceRules: [tokenReviewRule] }, validations: [{ expression: 'false', message: 'no reviews' }] }),
      vapb('deny-reviews-b', 'deny-reviews'),
    ],
    tokenReview(),
  ),
  // every resource of the review groups (a VAP on every group would also deny the harness's own probes)
  s(
    'SubjectAccessReview: a VAP matching every resource of its group is not evaluated',
    [
      vap('deny-reviews', { matchConstraints: { resourceRules: [reviewGroupsRule] }, validations: [{ expression: 'false', message: 'no' }] }),
      vapb('deny-reviews-b', 'deny-reviews'),
    ],
    subjectAccessReview(),
  ),
  s(
    'TokenReview: webhooks naming tokenreviews and * (called at 1.36, not from 1.37)',
    [validating('v', hook('named.example.com', { rules: [tokenReviewRule] }), hook('star.example.com', { rules: [anyRule] }))],
    tokenReview(),
    {
      'named.example.com': 'deny',
    },
  ),
  s(
    'SubjectAccessReview: a webhook for * (called at 1.36, not from 1.37)',
    [validating('v', hook('star.example.com', { rules: [anyRule] }))],
    subjectAccessReview(),
    { 'star.example.com': 'deny' },
  ),
  s(
    'TokenReview without metadata: a webhook patch adds /metadata/labels (at 1.36; not called from 1.37)',
    [mutating('m', hook('labels.example.com', { rules: [tokenReviewRule] }))],
    tokenReview(),
    {
      'labels.example.com': { patch: [{ op: 'add', path: '/metadata/labels', value: { reviewed: 'yes' } }] },
    },
  ),
];
