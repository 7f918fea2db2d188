// The GM's pages' own styles (gm.css: the console, the timeline, the create page),
// linked once from the document, since the page's policy runs no inline style.

import { useEffect } from "../vendor/htm-preact-standalone.js";

export function linkGmStyle() {
  if (document.querySelector('link[data-gm-style]')) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = "gm.css";
  link.dataset.gmStyle = "";
  document.head.appendChild(link);
}

export function useGmStyle() {
  useEffect(linkGmStyle, []);
}
