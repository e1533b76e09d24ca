/**
 * The least of a DOM that Observable Plot needs to draw an SVG in Node (elements, attributes, text, styles), and
 * its serialisation: no DOM library is among the dependencies, and Plot draws with nothing more. No layout, no
 * events, no selectors beyond a tag name: a chart for a file, not a page.
 */
const svgNamespace = "http://www.w3.org/2000/svg"

const escapeText = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
const escapeAttribute = (s: string) => escapeText(s).replaceAll('"', "&quot;")

class Style {
  readonly properties = new Map<string, string>()
  setProperty(name: string, value: string | null) {
    if (value === null || value === "") this.properties.delete(name)
    else this.properties.set(name, String(value))
  }
  removeProperty(name: string) {
    this.properties.delete(name)
  }
  getPropertyValue(name: string) {
    return this.properties.get(name) ?? ""
  }
  get cssText() {
    return [...this.properties].map(([k, v]) => `${k}: ${v};`).join(" ")
  }
}

class TextNode {
  readonly nodeType = 3
  parentNode: Element | null = null
  readonly ownerDocument: SvgDocument
  data: string
  constructor(ownerDocument: SvgDocument, data: string) {
    this.ownerDocument = ownerDocument
    this.data = data
  }
  get textContent() {
    return this.data
  }
  serialize(): string {
    return escapeText(this.data)
  }
}

type Child = Element | TextNode

export class Element {
  readonly nodeType = 1
  readonly attributes = new Map<string, string>()
  readonly childNodes: Array<Child> = []
  readonly style = new Style()
  parentNode: Element | null = null
  readonly ownerDocument: SvgDocument
  readonly namespaceURI: string
  readonly tagName: string
  constructor(ownerDocument: SvgDocument, namespaceURI: string, tagName: string) {
    this.ownerDocument = ownerDocument
    this.namespaceURI = namespaceURI
    this.tagName = tagName
  }
  get localName() {
    return this.tagName
  }
  get nodeName() {
    return this.tagName
  }
  get children() {
    return this.childNodes.filter((c): c is Element => c instanceof Element)
  }
  get firstChild() {
    return this.childNodes[0] ?? null
  }
  get lastChild() {
    return this.childNodes.at(-1) ?? null
  }
  get nextSibling(): Child | null {
    const siblings = this.parentNode?.childNodes ?? []
    return siblings[siblings.indexOf(this) + 1] ?? null
  }
  setAttribute(name: string, value: unknown) {
    this.attributes.set(name, String(value))
  }
  setAttributeNS(_ns: string | null, name: string, value: unknown) {
    this.setAttribute(name, value)
  }
  getAttribute(name: string) {
    return this.attributes.get(name) ?? null
  }
  hasAttribute(name: string) {
    return this.attributes.has(name)
  }
  removeAttribute(name: string) {
    this.attributes.delete(name)
  }
  removeAttributeNS(_ns: string | null, name: string) {
    this.attributes.delete(name)
  }
  appendChild<C extends Child>(child: C): C {
    return this.insertBefore(child, null)
  }
  append(...children: Array<Child | string>) {
    for (const c of children) this.appendChild(typeof c === "string" ? new TextNode(this.ownerDocument, c) : c)
  }
  insertBefore<C extends Child>(child: C, before: Child | null): C {
    if (child.parentNode !== null) child.parentNode.removeChild(child)
    const at = before === null ? -1 : this.childNodes.indexOf(before)
    if (at < 0) this.childNodes.push(child)
    else this.childNodes.splice(at, 0, child)
    child.parentNode = this
    return child
  }
  removeChild<C extends Child>(child: C): C {
    const at = this.childNodes.indexOf(child)
    if (at >= 0) this.childNodes.splice(at, 1)
    child.parentNode = null
    return child
  }
  remove() {
    this.parentNode?.removeChild(this)
  }
  get textContent(): string {
    return this.childNodes.map((c) => c.textContent).join("")
  }
  set textContent(text: string | null) {
    for (const c of this.childNodes) c.parentNode = null
    this.childNodes.length = 0
    if (text !== null && text !== "") this.appendChild(new TextNode(this.ownerDocument, String(text)))
  }
  querySelectorAll(selector: string): Array<Element> {
    const found: Array<Element> = []
    const walk = (e: Element) => {
      for (const c of e.children) {
        if (c.tagName === selector) found.push(c)
        walk(c)
      }
    }
    walk(this)
    return found
  }
  querySelector(selector: string): Element | null {
    return this.querySelectorAll(selector)[0] ?? null
  }
  addEventListener() {}
  removeEventListener() {}
  dispatchEvent() {
    return true
  }
  /** The element as XML, with its styles as a `style` attribute. */
  serialize(): string {
    const attributes = [...this.attributes]
    if (this.style.properties.size > 0) attributes.push(["style", this.style.cssText])
    if (this.tagName === "svg" && !this.attributes.has("xmlns")) attributes.unshift(["xmlns", svgNamespace])
    const open = [this.tagName, ...attributes.map(([k, v]) => `${k}="${escapeAttribute(v)}"`)].join(" ")
    if (this.childNodes.length === 0) return `<${open}/>`
    return `<${open}>${this.childNodes.map((c) => c.serialize()).join("")}</${this.tagName}>`
  }
}

export class SvgDocument {
  readonly documentElement: Element
  readonly defaultView = {
    Event: class {
      readonly type: string
      constructor(type: string) {
        this.type = type
      }
    }
  }
  constructor() {
    this.documentElement = new Element(this, "http://www.w3.org/1999/xhtml", "html")
  }
  createElementNS(namespace: string, tag: string) {
    return new Element(this, namespace, tag)
  }
  createElement(tag: string) {
    return new Element(this, "http://www.w3.org/1999/xhtml", tag)
  }
  createTextNode(text: string) {
    return new TextNode(this, text)
  }
  querySelector() {
    return null
  }
  querySelectorAll() {
    return []
  }
}
