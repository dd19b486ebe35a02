/**
 * Policy test runs: matching (policies, bindings, webhooks), ValidatingAdmissionPolicy
 * and MutatingAdmissionPolicy evaluation with a step-by-step trace, saved test cases and
 * their kaptest export. Pure TypeScript on the CEL engine (src/cel); runs in Node.
 */
export * from './matching';
export * from './params';
export * from './expressions';
export * from './match-conditions';
export * from './dispatch';
export * from './run';
export * from './validate';
export * from '../base/jsonpatch';
export * from './merge';
export * from './mutate';
export * from './cases';
export * from './coverage';
