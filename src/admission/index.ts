/**
 * The admission simulator (pure TypeScript, Node and browser):
 *   simulate(objects, request, options?) → Promise<SimResult>   (./simulate.ts)
 *   lockoutReport(objects, options?) → Promise<LockoutReport>   (./lockout.ts)
 * See README.md.
 */
export * from './types';
export { simulate } from './simulate';
export { discoveryFor, type Discovery, type ResourceInfo } from './discovery';
export { lockoutReport } from './lockout';
export { CRITICAL_REQUESTS, criticalRequests } from './critical-requests';
export { probe } from './simulate';
