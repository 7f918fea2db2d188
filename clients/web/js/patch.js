// JSON Patch (RFC 6902) as the server sends it: `add`, `remove` and `replace`, with
// RFC 6901 pointers. The table is never changed in place: each operation copies the
// maps and lists along its path and keeps every other branch as the same object, so a
// view that compares what it drew last by identity (a token, a rail entry) redraws only
// what a patch touched. Lists are replaced whole by the server, but an index or `-`
// in a pointer is still honoured, as the RFC says.

/** The keys of a JSON Pointer: "" is the whole document, "/a~1b/0" is ["a/b", "0"]. */
export function parsePointer(pointer) {
  if (pointer === "") return [];
  if (pointer[0] !== "/") throw new PatchError(`not a JSON Pointer: ${pointer}`);
  return pointer
    .slice(1)
    .split("/")
    .map((key) => key.replace(/~1/g, "/").replace(/~0/g, "~"));
}

export class PatchError extends Error {}

function shallowCopy(value) {
  return Array.isArray(value) ? value.slice() : { ...value };
}

function listIndex(list, key, adding) {
  if (adding && key === "-") return list.length;
  if (!/^(0|[1-9][0-9]*)$/.test(key)) throw new PatchError(`not a list index: ${key}`);
  const index = Number(key);
  if (index > list.length || (!adding && index === list.length)) {
    throw new PatchError(`index ${index} is out of the list`);
  }
  return index;
}

function isContainer(value) {
  return value !== null && typeof value === "object";
}

/** One operation on `doc`; the new document (the old one is left as it was). */
function applyOne(doc, op) {
  const keys = parsePointer(op.path);
  if (keys.length === 0) {
    if (op.op === "remove") throw new PatchError("cannot remove the whole document");
    return op.value;
  }
  const root = shallowCopy(doc);
  let parent = root;
  for (const key of keys.slice(0, -1)) {
    const index = Array.isArray(parent) ? listIndex(parent, key, false) : key;
    if (!Array.isArray(parent) && !Object.prototype.hasOwnProperty.call(parent, key)) {
      throw new PatchError(`no ${op.path}: ${key} is missing`);
    }
    if (!isContainer(parent[index])) throw new PatchError(`no ${op.path}: ${key} is a value`);
    parent[index] = shallowCopy(parent[index]);
    parent = parent[index];
  }
  const last = keys[keys.length - 1];
  if (Array.isArray(parent)) {
    const index = listIndex(parent, last, op.op === "add");
    if (op.op === "add") parent.splice(index, 0, op.value);
    else if (op.op === "remove") parent.splice(index, 1);
    else if (op.op === "replace") parent[index] = op.value;
    else throw new PatchError(`unknown operation ${op.op}`);
    return root;
  }
  const present = Object.prototype.hasOwnProperty.call(parent, last);
  if (op.op === "add") parent[last] = op.value;
  else if (op.op === "replace" || op.op === "remove") {
    if (!present) throw new PatchError(`no ${op.path} to ${op.op}`);
    if (op.op === "replace") parent[last] = op.value;
    else delete parent[last];
  } else throw new PatchError(`unknown operation ${op.op}`);
  return root;
}

/** `doc` after every operation of `patch`, in order. Throws `PatchError` on an
 * operation that does not fit the document (the caller then asks for a fresh table). */
export function applyPatch(doc, patch) {
  return patch.reduce(applyOne, doc);
}

/** A copy of `doc` with `value` at `pointer`, for filling a hole of a choice. */
export function setAt(doc, pointer, value) {
  return applyOne(doc, { op: "add", path: pointer, value });
}

/** The value at `pointer` in `doc`, or undefined. */
export function getAt(doc, pointer) {
  let here = doc;
  for (const key of parsePointer(pointer)) {
    if (!isContainer(here)) return undefined;
    here = here[key];
  }
  return here;
}
