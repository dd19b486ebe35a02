/**
 * Opening files: each document's origin is the path the file was opened under (its path in an
 * opened or dropped folder, else its name); a dropped folder is walked, its entries read in the
 * batches the browser gives; a folder's files that are neither YAML nor JSON are named, not read.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { exportDocs } from '../store/export';
import { workspace } from '../store/workspace';
import { droppedFiles, readFiles } from './files';

/** A dropped entry tree as the browser's FileSystemEntry API gives it (readEntries answers two at a time, then an empty batch). */
type Tree = { [name: string]: string | Tree };
function entry(name: string, node: string | Tree): FileSystemEntry {
  if (typeof node === 'string') {
    const file = new File([node], name);
    return { name, isFile: true, isDirectory: false, file: (ok: (f: File) => void) => ok(file) } as unknown as FileSystemEntry;
  }
  const children = Object.entries(node).map(([n, c]) => entry(n, c));
  return {
    name,
    isFile: false,
    isDirectory: true,
    createReader: () => {
      let at = 0;
      return { readEntries: (ok: (batch: FileSystemEntry[]) => void) => ok(children.slice(at, (at += 2))) };
    },
  } as unknown as FileSystemEntry;
}
const items = (tree: Tree) => Object.entries(tree).map(([n, c]) => ({ kind: 'file', webkitGetAsEntry: () => entry(n, c) })) as unknown as DataTransferItemList;

const POD = 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n';

beforeEach(() => workspace.setState({ docs: [], selectedId: null, notices: [] }));

describe('opening files', () => {
  it('a dropped folder is walked, every file with its path in it, hidden folders included', async () => {
    const files = await droppedFiles(
      items({
        policy: { 'policy.yaml': POD, '.kyverno-test': { 'kyverno-test.yaml': 'a: 1\n', 'resource.yaml': POD, 'values.yaml': 'b: 2\n' }, 'README.md': '#' },
      }),
    );
    expect(files!.map((f) => f.path).sort()).toEqual([
      'policy/.kyverno-test/kyverno-test.yaml',
      'policy/.kyverno-test/resource.yaml',
      'policy/.kyverno-test/values.yaml',
      'policy/README.md',
      'policy/policy.yaml',
    ]);
    // dropped files alone (no folder): the browser's file list is read as it is
    expect(await droppedFiles(items({ 'policy.yaml': POD }))).toBeUndefined();
  });

  it("documents take the path they were opened under; a folder's other files are named, not read", async () => {
    await readFiles([
      { file: new File([POD], 'resource.yaml'), path: 'policy/.kyverno-test/resource.yaml' },
      { file: new File(['#'], 'README.md'), path: 'policy/README.md' },
      new File([POD], 'alone.yaml'),
    ]);
    const s = workspace.getState();
    expect(s.docs.map((d) => d.origin)).toEqual(['policy/.kyverno-test/resource.yaml', 'alone.yaml']);
    expect(s.notices.map((n) => n.text)).toContain('Not read (neither YAML nor JSON): policy/README.md.');
  });

  it("a file's BOM is exported back before its first document, never part of a document's text", async () => {
    const text = `# BOM file\n---\n${POD}---\n${POD.replace('name: p', 'name: q')}`;
    await readFiles([new File([Uint8Array.of(0xef, 0xbb, 0xbf), text], 'bom.yaml')]);
    const { docs } = workspace.getState();
    expect(docs.map((d) => d.text.charCodeAt(0))).not.toContain(0xfeff);
    expect(exportDocs(docs).text).toBe(`\ufeff${text}`);
  });
});
