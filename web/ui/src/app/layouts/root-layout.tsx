import { useEffect } from "react";
import { Outlet, useLocation } from "react-router";
import { Footer } from "../../components/footer";
import { Header } from "../../components/header";
import { Loading } from "../../components/loading";
import { Toaster } from "../../components/toaster";

/** Points the canonical and share URLs at the page on show, not at the entry page. */
function setPageUrl(pathname: string) {
  const url = new URL(pathname, window.location.origin).href;
  document.querySelector('link[rel="canonical"]')?.setAttribute("href", url);
  document.querySelector('meta[property="og:url"]')?.setAttribute("content", url);
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
