/**
 * The admission simulator (pure TypeScript, Node and browser):
 *   simulate(objects, request, options?) → Promise<SimResult>   (./simulate.ts)
 *   lockoutReport(objects, options?) → Promise<LockoutReport>   (./lockout.ts)
 * See README.md.
 */
export * from './types';
