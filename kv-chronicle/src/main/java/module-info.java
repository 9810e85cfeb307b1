/** A {@code Codec} for Chronicle Bytes {@code BytesMarshallable} classes. */
module dev.ferrite.kv.chronicle {
    requires transitive dev.ferrite.kv;
    requires transitive chronicle.bytes;
    requires chronicle.core;

    exports dev.ferrite.kv.chronicle;
}
