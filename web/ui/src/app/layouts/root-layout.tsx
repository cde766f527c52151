import { useEffect } from "react";
import { Outlet, useLocation } from "react-router";
import { Footer } from "../../components/footer";
import { Header } from "../../components/header";
import { Loading } from "../../components/loading";
import { Toaster } from "../../components/toaster";

function headTag(selector: string, tag: "link" | "meta", attributes: Record<string, string>) {
  let element = document.head.querySelector(selector);
  if (!element) {
    element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
    document.head.append(element);
  }
  return element;
}

/** The canonical and share URLs name the page on show; the build cannot know the origin. */
function setPageUrl(pathname: string) {
  const url = new URL(pathname, window.location.origin).href;
  headTag('link[rel="canonical"]', "link", { rel: "canonical" }).setAttribute("href", url);
  headTag('meta[property="og:url"]', "meta", { property: "og:url" }).setAttribute("content", url);
}

export function RootLayout() {
  const { pathname } = useLocation();

  useEffect(() => {
    window.scrollTo(0, 0);
    setPageUrl(pathname);
  }, [pathname]);

  return (
    <>
      <Header />
      <main className="container">
        <Outlet />
      </main>
      <Footer />
      <Toaster />
    </>
  );
}

/** Shown on first load while a lazily loaded route module arrives. */
export function RootHydrateFallback() {
  return (
    <>
      <Header />
      <Loading />
      <Footer />
    </>
  );
}
