/**
 * The differentials' requests, simulated several at a time: each one's engine calls then leave in
 * the same write as the others' (one request at a time, the round trips to the native engine were
 * a fifth of the Kyverno differential's CPU).
 */
import type { Obj } from '../../base/json';

/** Requests simulated at once. */
export const CHUNK = 16;

/** The batch's objects not seen before (marked seen), with their index in the batch. */
export const fresh = (batch: readonly Obj[], seen: Set<string>): [number, Obj][] =>
  [...batch.entries()].filter(([, r]) => {
    const key = JSON.stringify(r);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });

/** `simulate` on every item, `chunk` at a time, and `take` of each answer in the items' order. */
export async function simulateInOrder<T, A>(items: readonly T[], chunk: number, simulate: (item: T) => Promise<A>, take: (answer: A) => void): Promise<void> {
  for (let at = 0; at < items.length; at += chunk) for (const answer of await Promise.all(items.slice(at, at + chunk).map(simulate))) take(answer);
}
