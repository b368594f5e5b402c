// A downloaded slide carries its chart's text alternative (WCAG 2.1 SC 1.1.1; issue 28).
// Our own fixed script, installed once per browser tab by dpui.kit.present.header.
// No "<" before a letter, "/" or "!" anywhere here, comments included: Streamlit's DOMPurify
// drops a script element whose text has one (tests/kit/test_present.py checks).
//
// Plotly's camera button (plotly.js src/snapshot/filesaver.js, bundled by Streamlit) makes
// the image a Blob, gives it to URL.createObjectURL, and synchronously calls .click() on an
// anchor whose download is "dp-explorer-{key}.png" (or .svg) before revoking the URL. Here
// we remember the blobs given to createObjectURL, and a click on such an anchor instead reads
// the blob, adds the text that present.show_chart wrote under the chart (the element
// [data-dp-alt-for="dp-explorer-{key}"]: its textContent, and its data-dp-alt-title), and
// downloads the result under the same name:
//   SVG: title and desc elements as the root's first children, role="img", and
//        aria-labelledby naming both;
//   PNG: iTXt chunks "Title" and "Description" (UTF-8, uncompressed) before the first IDAT.
// On any failure the original file is downloaded: a download is never lost.
if (!window.dpSlideAltInstalled) {
  window.dpSlideAltInstalled = true;
  const PREFIX = 'dp-explorer-';
  const createURL = URL.createObjectURL.bind(URL);
  const revokeURL = URL.revokeObjectURL.bind(URL);
  const click = HTMLElement.prototype.click;
  const blobs = new Map(); // object URL -> its image Blob, until the URL is revoked

  URL.createObjectURL = (obj) => {
    const url = createURL(obj);
    if (obj instanceof Blob && obj.type.startsWith('image/')) blobs.set(url, obj);
    return url;
  };
  URL.revokeObjectURL = (url) => {
    blobs.delete(url);
    revokeURL(url);
  };

  // text kept to what XML 1.0 allows (a control character would make the SVG unreadable, and
  // PNG's specification discourages them in text too)
  const clean = (s) => s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');

  const withSvgAlt = async (blob, name, title, text) => {
    const doc = new DOMParser().parseFromString(await blob.text(), 'image/svg+xml');
    const svg = doc.documentElement;
    if (svg.localName !== 'svg' || doc.getElementsByTagName('parsererror').length) {
      throw new Error('not an SVG');
    }
    const ids = [];
    // desc first, then title before it: title ends up the first child
    for (const [tag, value] of [['desc', text], ['title', title]]) {
      if (!value) continue;
      const el = doc.createElementNS('http://www.w3.org/2000/svg', tag);
      el.id = `${name}-${tag}`;
      el.textContent = value; // a text node: XMLSerializer escapes the markup characters
      svg.insertBefore(el, svg.firstChild);
      ids.unshift(el.id);
    }
    if (ids.length) { // an image role wants a name: none when there is no text at all
      svg.setAttribute('role', 'img');
      svg.setAttribute('aria-labelledby', ids.join(' '));
    }
    return new Blob([new XMLSerializer().serializeToString(doc)], { type: blob.type });
  };

  const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (bytes) => {
    let c = 0xffffffff;
    for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  // an iTXt chunk: keyword, NUL, compression flag 0 and method 0, empty language tag and
  // translated keyword (each NUL-ended), the UTF-8 text; the CRC covers type and data
  const iTXt = (keyword, text) => {
    const enc = new TextEncoder();
    const key = enc.encode(keyword);
    const value = enc.encode(text);
    const body = new Uint8Array(4 + key.length + 5 + value.length);
    body.set(enc.encode('iTXt'), 0);
    body.set(key, 4);
    body.set(value, 4 + key.length + 5); // the five bytes between are zero
    const chunk = new Uint8Array(8 + body.length);
    const view = new DataView(chunk.buffer);
    view.setUint32(0, body.length - 4);
    chunk.set(body, 4);
    view.setUint32(4 + body.length, crc32(body));
    return chunk;
  };

  const withPngAlt = async (blob, title, text) => {
    const png = new Uint8Array(await blob.arrayBuffer());
    const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
    if (png.length < 8 || signature.some((b, i) => png[i] !== b)) throw new Error('not a PNG');
    const view = new DataView(png.buffer);
    let at = 8;
    while (at + 8 <= png.length) {
      const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
      if (type === 'IDAT') {
        const added = [title && iTXt('Title', title), iTXt('Description', text)].filter(Boolean);
        return new Blob([png.subarray(0, at), ...added, png.subarray(at)], { type: blob.type });
      }
      at += 12 + view.getUint32(at); // length, type, data, CRC
    }
    throw new Error('no IDAT');
  };

  const save = (blob, name) => {
    const url = createURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    click.call(a);
    a.remove();
    setTimeout(() => revokeURL(url), 60000); // the download has long read it by then
  };

  // the chart's blob and text when ``anchor`` downloads one of our slides, else null
  const slideOf = (anchor) => {
    const name = anchor.download || '';
    const blob = blobs.get(anchor.href);
    const base = name.replace(/\.(png|svg)$/, '');
    if (!name.startsWith(PREFIX) || !blob || base === name) return null;
    const source = document.querySelector(`[data-dp-alt-for="${CSS.escape(base)}"]`);
    if (!source) return null;
    const text = clean(source.textContent).trim(); // textContent: the text, never markup
    const title = clean(source.getAttribute('data-dp-alt-title') || '').trim();
    return { blob, name, base, title, text };
  };

  HTMLAnchorElement.prototype.click = function () {
    let slide = null;
    try {
      slide = slideOf(this);
    } catch (e) {
      slide = null;
    }
    if (!slide) return click.call(this);
    const { blob, name, base, title, text } = slide;
    const rewritten = name.endsWith('.svg')
      ? withSvgAlt(blob, base, title, text) : withPngAlt(blob, title, text);
    rewritten.catch(() => blob).then((out) => save(out, name));
    return undefined;
  };
}
