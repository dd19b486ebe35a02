#!/usr/bin/env node
/**
 * CLI benchmark (part of npm run bench): wall time of `admission-workbench check`, as CI
 * runs it — a new Node process each time, CEL engine start included — on
 *   1. the 44 real-world-like files of fixtures/realworld (115 objects);
 *   2. 1,000 generated ValidatingWebhookConfiguration files (one webhook with a matchCondition each).
 * The bundle is built first and run directly, so no build is counted. Median of 3 runs; also the time of
 * the engine start alone (a check of one empty file).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli, timeCli } from './bench-cli-run.mjs';

buildCli();

/** `check` with `args`: the median time, exit code and the output's last line. */
function time(args) {
  const r = timeCli(['check', ...args]);
  return { ms: r.ms, code: r.code, summary: r.stdout.trim().split('\n').pop() };
}

const dir = mkdtempSync(join(tmpdir(), 'aw-bench-cli-'));
try {
  writeFileSync(join(dir, 'empty.yaml'), '');
  const many = join(dir, 'generated');
  mkdirSync(many);
  for (let i = 0; i < 1000; i++) {
    writeFileSync(
      join(many, `vwc-${String(i).padStart(4, '0')}.yaml`),
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: generated-${i}.example.com
webhooks:
- name: validate-${i}.generated.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: ${(i % 30) + 1}
  clientConfig:
    service: {namespace: webhooks, name: generated-${i}, path: /validate, port: 443}
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}
  rules:
  - apiGroups: [apps]
    apiVersions: [v1]
    operations: [CREATE, UPDATE]
    resources: [deployments]
    scope: Namespaced
  matchConditions:
  - name: not-system-${i}
    expression: "!request.userInfo.username.startsWith('system:') && request.namespace != 'ns-${i}'"
`,
    );
  }
  console.log('\n## CLI: admission-workbench check (a new Node process each run, engine start included; median of 3)');
  const start = time([join(dir, 'empty.yaml')]);
  console.log(`engine start + empty file: ${start.ms.toFixed(0)} ms`);
  const real = time(['fixtures/realworld', '--quiet', '--format', 'json']);
  console.log(`44 real-world files: ${real.ms.toFixed(0)} ms (exit ${real.code})`);
  const gen = time([many, '--quiet', '--format', 'json']);
  console.log(`1,000 generated webhook configurations: ${gen.ms.toFixed(0)} ms (exit ${gen.code})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
