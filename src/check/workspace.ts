/**
 * The whole workspace through the checks (object.ts), as the CLI runs it: caBundles are
 * inspected first (async), then every object is checked against all of them at one release.
 */
import { inspectCaBundle, type CaBundleInspection } from '../k8s/ca-bundle';
import { caBundleSites } from '../k8s/lints';
import { checkObject, type CheckOptions, type ObjectChecks } from './object';

/** Inspects every caBundle of the objects (once per distinct bundle): a lookup for CheckOptions.caInspection. */
export async function inspectBundles(objects: readonly unknown[]): Promise<(caBundle: string) => CaBundleInspection | undefined> {
  const done = new Map<string, CaBundleInspection>();
  for (const o of objects)
    for (const site of caBundleSites(o))
      if (!done.has(site.caBundle))
        done.set(
          site.caBundle,
          await inspectCaBundle(site.caBundle).catch(
            (e: unknown): CaBundleInspection => ({ certificates: [], problems: [{ message: `could not inspect: ${String(e)}` }] }),
          ),
        );
  return (caBundle) => done.get(caBundle);
}

/** Every object's checks, in order (objects of kinds not checked get only the size limits). */
export async function checkWorkspace(objects: readonly unknown[], options: CheckOptions = {}): Promise<ObjectChecks[]> {
  const caInspection = options.caInspection ?? (await inspectBundles(objects));
  return objects.map((o) => checkObject(o, objects, { ...options, caInspection }));
}
