/**
 * The sandbox's webhook inbox as the server runs it (core's `WebhookInbox`): where a partner's
 * inbox is, reading what arrived there, and receiving a delivery with its raw body.
 */
import {
  type ApiError,
  Fields,
  type IdGenerator,
  type PartnerRepo,
  type StoreError,
  WebhookInbox,
  type WebhookInboxRepo
} from "@ratelock/core"
import { Effect, Option } from "effect"
import type { Mac } from "effect/crypto"
import { HttpServerRequest } from "effect/http"

/** A partner's inbox on the server at `baseUrl` (`http://localhost:8080`). */
export const url = (baseUrl: string, partnerId: string) => `${baseUrl}${WebhookInbox.path(partnerId)}`

/** The partner's inbox on this server, as the request reached it. */
const urlAsReached = (request: HttpServerRequest.HttpServerRequest, partnerId: string) =>
  Option.match(HttpServerRequest.toURL(request), {
    onNone: () => WebhookInbox.path(partnerId),
    onSome: (reached) => url(reached.origin, partnerId)
  })

/** `GET /api/v1/sandbox/webhook-inbox`: what arrived, newest first. */
export const list = (
  partnerId: string,
  request: HttpServerRequest.HttpServerRequest,
  limit: number | undefined
): Effect.Effect<WebhookInbox.InboxPage, StoreError.StoreError, WebhookInboxRepo.WebhookInboxRepo> =>
  WebhookInbox.list(
    { partnerId, environment: "sandbox" },
    urlAsReached(request, partnerId),
    limit ?? Fields.defaultPageLimit
  )

/** `POST /api/v1/sandbox/webhook-inbox/{partner_id}`: the delivery as received, bytes and headers. */
export const receive = (
  partnerId: string,
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<
  typeof WebhookInbox.Received.Type,
  ApiError.WebhookInboxNotFound | StoreError.StoreError,
  PartnerRepo.PartnerRepo | WebhookInboxRepo.WebhookInboxRepo | IdGenerator.IdGenerator | Mac.Mac
> => Effect.flatMap(Effect.orDie(request.text), (body) => WebhookInbox.receive(partnerId, request.headers, body))
