import { useEffect } from "react";
import { site } from "../config/site";

/** Sets the page title to "{title} - Sendlater", or "Sendlater" without a title. */
export function useDocumentTitle(title?: string) {
  useEffect(() => {
    document.title = title === undefined ? site.name : `${title} - ${site.name}`;
  }, [title]);
}
