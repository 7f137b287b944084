package dev.uringactors.config;

import dev.uringactors.ring.DocumentedApi;

class DocumentedApiTest extends DocumentedApi {
}
