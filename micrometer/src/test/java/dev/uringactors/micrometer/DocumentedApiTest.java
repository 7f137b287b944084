package dev.uringactors.micrometer;

import dev.uringactors.ring.DocumentedApi;

class DocumentedApiTest extends DocumentedApi {
}
