import { useParams } from "react-router";
import { plans, type PlanId } from "../../config/plans";
import { PurchasePage } from "../../features/purchase/components/purchase-page";
import { useDocumentTitle } from "../../lib/document-title";
import { Component as NotFound } from "./not-found";

const isPlan = (value: string | undefined): value is PlanId => plans.some((p) => p.id === value);

function Purchase({ plan }: { plan: PlanId }) {
  useDocumentTitle("Purchase");
  return <PurchasePage plan={plan} />;
}

export function Component() {
  const { plan } = useParams();
  return isPlan(plan) ? <Purchase plan={plan} /> : <NotFound />;
}
