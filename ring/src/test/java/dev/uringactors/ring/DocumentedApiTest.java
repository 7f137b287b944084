package dev.uringactors.ring;

class DocumentedApiTest extends DocumentedApi {
}
