import { Suspense, useLayoutEffect } from "react";
import { Outlet, useLocation } from "react-router";
import { Footer } from "../../components/footer";
import { Header } from "../../components/header";
import { Spinner } from "../../components/loading";
import { Toaster } from "../../components/toaster";
import { pagePath } from "../../lib/page-path";
import { PageShown } from "../../lib/page-shown";

export function RootLayout() {
  const { pathname } = useLocation();

  // Before paint, so the new page never shows at the old one's scroll position.
  useLayoutEffect(() => {
    window.scrollTo(0, 0);
    pagePath.value = pathname;
  }, [pathname]);

  return (
    <>
      <Header />
      <main className="container">
        {/* A page's chunk on its first visit. */}
        <Suspense fallback={<Spinner />}>
          <Outlet />
          <PageShown />
        </Suspense>
      </main>
      <Footer />
      <Toaster />
    </>
  );
}
