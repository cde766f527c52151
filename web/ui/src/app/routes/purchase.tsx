import { useParams } from "react-router";
import { pageHead, paramValue } from "../../config/pages";
import type { PlanId } from "../../config/paths";
import { PurchasePage } from "../../features/purchase/components/purchase-page";
import { usePageHead } from "../../lib/head";
import { RequireAuth } from "../layouts/require-auth";
import NotFoundRoute from "./not-found";

function Purchase({ plan }: { plan: PlanId }) {
  usePageHead(pageHead("purchase"));
  return <PurchasePage plan={plan} />;
}

export default function PurchaseRoute() {
  const plan = paramValue("purchase", useParams().plan) as PlanId | undefined;
  // An unknown plan is no page, signed in or not (the server answers 404 for it too).
  return plan ? (
    <RequireAuth>
      <Purchase plan={plan} />
    </RequireAuth>
  ) : (
    <NotFoundRoute />
  );
}
