/** A bogus, unknown or missing token: nothing about why. */
export default function UnknownVerification() {
  return <p>This verification is not known.</p>;
}
