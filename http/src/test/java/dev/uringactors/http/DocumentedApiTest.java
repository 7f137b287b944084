package dev.uringactors.http;

import dev.uringactors.ring.DocumentedApi;

class DocumentedApiTest extends DocumentedApi {
}
