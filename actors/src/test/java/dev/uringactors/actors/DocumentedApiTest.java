package dev.uringactors.actors;

import dev.uringactors.ring.DocumentedApi;

class DocumentedApiTest extends DocumentedApi {
}
