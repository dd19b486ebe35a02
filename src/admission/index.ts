/**
 * The admission simulator (pure TypeScript, Node and browser):
 *   simulate(objects, request, options?) → Promise<SimResult>   (./simulate.ts)
 *   lockoutReport(objects, options?) → Promise<LockoutReport>   (./lockout.ts)
 *   probe(objects, request, options?): simulate without stopping at a rejection (lockout)
 * See README.md.
 */
export * from './types';
export { simulate, probe } from './simulate';
export { lockoutReport } from './lockout';
export { CRITICAL_REQUESTS, criticalRequests } from './critical-requests';
export { discoveryFor, type Discovery, type ResourceInfo } from './discovery';
