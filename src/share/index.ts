/**
 * The workspace file (one versioned JSON payload for share links and the CLI's `--cases`)
 * and share links (the payload compressed into a URL fragment). Pure TypeScript; runs in
 * Node 20 and the browser. See README.md.
 */
export * from './workspace-file';
export {
  decodeShareFragment,
  encodeShareFragment,
  isShareFragment,
  shareUrl,
  LONG_LINK_CHARS,
  MAX_SHARE_JSON_BYTES,
  MAX_SHARE_FRAGMENT_CHARS,
  SHARE_FRAGMENT_KEY,
} from './link';
