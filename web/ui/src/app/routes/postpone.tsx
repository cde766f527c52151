import { useParams, useSearchParams } from "react-router";
import { PostponePage } from "../../features/postpone/components/postpone-page";
import { useDocumentTitle } from "../../lib/document-title";

export function Component() {
  useDocumentTitle("Postpone");
  const { id = "" } = useParams();
  const [search] = useSearchParams();
  return <PostponePage id={id} code={search.get("code") ?? ""} />;
}
