/**
 * Reading a webhook's clientConfig.url: its host (W18 warns of localhost and in-cluster DNS), and
 * the Service an in-cluster name addresses (the Lockout report's self-deadlock check treats such a
 * URL as clientConfig.service, since the pods behind it are the webhook's own).
 */

/** The host of a URL, lower-cased, without port or path; '' when the text is no URL. */
export const urlHost = (url: string): string => /^[a-z]+:\/\/([^/:?#]*)/i.exec(url)?.[1]?.toLowerCase() ?? '';

/** The Service a URL's in-cluster DNS name addresses (`<service>.<namespace>.svc[.cluster.local]`), if it is one. */
export function inClusterService(url: string): { name: string; namespace: string } | undefined {
  const m = /^([a-z0-9-]+)\.([a-z0-9-]+)\.svc(?:\.cluster\.local)?\.?$/.exec(urlHost(url));
  return m ? { name: m[1]!, namespace: m[2]! } : undefined;
}
