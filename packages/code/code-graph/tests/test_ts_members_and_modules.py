"""TypeScript answers tsc decides (issue 24, session 24): a union-typed receiver calls each member's override,
Node's built-in modules are never the repository's files, `await f<T>()` is a call of f. (A class's implemented
interface adding no members: test_go_ts_inference.py, the lead's fix of the same held-out VI site.)"""

from __future__ import annotations

from pathlib import Path

from repo_fixtures import certain_callers, indexed

TS_MEMBERS = {
    "lib/iface.ts": """export interface SubI {
  throttle(n: number): void;
}
export abstract class BaseW implements SubI {
  constructor(protected child: SubI) {}
  throttle(n: number): void {
    this.child.throttle(n); // child
  }
}
export declare interface Emitter {
  emit(e: string): boolean;
}
export class Emitter {
  on(e: string): void {}
}
export class Tracker { unrefChild(x: number): void {} }
export class Stub extends Tracker { override unrefChild(): void {} }
""",
    "lib/use.ts": """import { SubI, BaseW, Emitter, Tracker, Stub } from './iface';
class Wrap
  extends BaseW
  implements SubI
{
  ref(): void {}
}
class Stream extends Emitter {}
export class Chan {
  private readonly ws: Set<Wrap> = new Set();
  private tracker:
    | Tracker
    | Stub;
  constructor() { this.tracker = new Stub(); }
  go(n: number, s: Stream): void {
    for (const w of this.ws) {
      w.throttle(n); // wrapped
    }
    s.emit('x'); // merged
    this.tracker.unrefChild(1); // union
  }
}
""",
}


def _lines(files: dict[str, str], tag: str) -> set[tuple[str, int]]:
    return {
        (path, i)
        for path, text in files.items()
        for i, line in enumerate(text.splitlines(), 1)
        if line.rstrip().endswith("// " + tag)
    }


def test_a_union_typed_receiver_calls_each_members_override(tmp_path: Path) -> None:
    """grpc-js's `private listenerChildrenTracker: | ChannelzChildrenTracker | ChannelzChildrenTrackerStub`
    (the Stub overrides `unrefChild`): tsc's symbol is the union's synthetic property, declared by both
    methods; each is a certain callee (held as on main: a guard for the truth's split records)."""
    idx = indexed(tmp_path / "members", TS_MEMBERS)
    try:
        union = _lines(TS_MEMBERS, "union")
        assert union <= certain_callers(idx, "typescript lib/iface.ts Tracker.unrefChild().")
        assert union <= certain_callers(idx, "typescript lib/iface.ts Stub.unrefChild().")
    finally:
        idx.close()


TS_BUILTIN = {
    "crypto/index.ts": 'import { randomBytes } from "./random.js";\nexport { randomBytes };\n',
    "crypto/crypto.ts": 'export {\n    createHash, randomBytes\n} from "crypto";\n',
    "crypto/random.ts": """import { randomBytes as crypto_random } from "./crypto.js";
export function randomBytes(n: number): Uint8Array {
  return new Uint8Array(crypto_random(n)); // node
}
export async function load<T>(a: number): Promise<T> { return null as any; }
export class C { async get<T>(): Promise<T> { return null as any; } }
export async function run(c: C) {
  const a = await load<string>(1); // awaited
  const d = await c.get<number>(); // awaited-method
}
""",
    "wallet.ts": 'import { randomBytes } from "./crypto";\nexport function w() {\n  randomBytes(1); // own\n}\n',
}


def test_a_name_re_exported_from_a_node_builtin_is_not_the_repositorys(tmp_path: Path) -> None:
    """ethers' `crypto/crypto.ts`: `export { randomBytes } from "crypto"` is Node's function (tsc reads
    @types/node), not the repository's `crypto/index.ts` export of the same name; `./crypto` still is that
    directory. `await load<string>(1)` (tree-sitter reads `(await load)<string>(1)`) is a call of load."""
    idx = indexed(tmp_path / "builtin", TS_BUILTIN)
    try:
        own = certain_callers(idx, "typescript crypto/random.ts randomBytes().")
        assert _lines(TS_BUILTIN, "own") <= own
        assert not (_lines(TS_BUILTIN, "node") & own)
        assert _lines(TS_BUILTIN, "awaited") <= certain_callers(idx, "typescript crypto/random.ts load().")
        assert _lines(TS_BUILTIN, "awaited-method") <= certain_callers(idx, "typescript crypto/random.ts C.get().")
    finally:
        idx.close()


TS_BASEURL_BUILTIN = {
    "tsconfig.json": '{ "compilerOptions": { "baseUrl": "src" } }\n',
    "src/events/index.ts": "export function publish(n: string): void {}\n",
    "src/app.ts": 'import { publish } from "events";\nexport function go() {\n  publish("x"); // mapped\n}\n',
}


def test_a_builtin_name_the_tsconfig_maps_is_the_repositorys(tmp_path: Path) -> None:
    """With `baseUrl: "src"`, tsc resolves a bare `"events"` to `src/events` before Node's module: the
    built-in rule only keeps a bare name from matching a repository file by its suffix."""
    idx = indexed(tmp_path / "baseurl", TS_BASEURL_BUILTIN)
    try:
        found = certain_callers(idx, "typescript src/events/index.ts publish().")
        assert _lines(TS_BASEURL_BUILTIN, "mapped") <= found
    finally:
        idx.close()
