/** A tiny JSX runtime rendering to HTML strings; enough for server-side snippets. */

export type Child = VNode | string | number | boolean | null | undefined | Child[];
export type Props = Record<string, unknown> | null;
export type Component<P> = (props: P & { children?: Child[] }) => VNode;

export interface VNode {
  tag: string;
  props: Record<string, unknown>;
  children: Child[];
}

export const Fragment = "";

/** JSX factory (configured as jsxFactory in tsconfig.json). */
export function h(tag: string | Component<any>, props: Props, ...children: Child[]): VNode {
  if (typeof tag === "function") {
    return tag({ ...(props ?? {}), children });
  }
  return { tag, props: props ?? {}, children };
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

function renderAttrs(props: Record<string, unknown>): string {
  return Object.entries(props)
    .filter(([name, value]) => value !== false && value != null && !name.startsWith("on"))
    .map(([name, value]) => {
      const attr = name === "className" ? "class" : name;
      return value === true ? ` ${attr}` : ` ${attr}="${escapeHtml(String(value))}"`;
    })
    .join("");
}

/** Render a tree to an HTML string; event handlers are dropped. */
export function renderToString(node: Child): string {
  if (node == null || typeof node === "boolean") return "";
  if (Array.isArray(node)) return node.map(renderToString).join("");
  if (typeof node === "string" || typeof node === "number") return escapeHtml(String(node));
  const inner = node.children.map(renderToString).join("");
  if (node.tag === Fragment) return inner;
  return `<${node.tag}${renderAttrs(node.props)}>${inner}</${node.tag}>`;
}

// Type-checking hook for JSX: TypeScript looks up `h.JSX` because `h` is the factory.
// eslint-disable-next-line @typescript-eslint/no-namespace
export namespace h {
  export namespace JSX {
    export type Element = VNode;
    export interface IntrinsicElements {
      [tag: string]: Record<string, unknown>;
    }
  }
}
